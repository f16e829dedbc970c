import { describe, expect, it } from 'vitest';
import { recoveryFeature } from '../../../src/features/recovery/feature.js';
import type { RecoveryAdb } from '../../../src/features/recovery/carry.js';
import { actionBed, featureContext } from '../../support/feature-bed.js';
import { loadSettings } from '../../../src/config/load.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';
import { androidPhone } from '../../support/devices.js';

// A recovery action whose command fails: the line says which layer failed
// (the adb server's command, not the phone's inventory) and what happens
// next, not only the error's own words (docs/design/statements.md).

describe('a recovery action that fails', () => {
  it("a kick the adb server does not carry out: one line naming the phone, the adb server's command and the cooldown", async () => {
    const time = new VirtualTime();
    const clock = time.clock({ seed: 5 });
    const settings = loadSettings({ env: { DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2' } });
    const registry = new DeviceRegistry();
    const log = captureLogger('info');
    const booking = { ask: () => Promise.resolve({ booked: false }) };
    const refused = () => Promise.reject(new Error("adb server answered 'closed'"));
    const adb: RecoveryAdb = { platform: 'android', reconnectOffline: refused, reconnect: refused, connect: refused };
    const recovery = actionBed(recoveryFeature, featureContext({ settings, registry, stats: new AgentStats(), logger: log.logger, clock, phones: adb }), {
      booking,
    });
    registry.sync('android', new Map([['W1', 'device']]));
    registry.readings.answered('android/W1', androidPhone('udid-w1'), clock.wall(), clock.monotonic());
    registry.readings.failed('android/W1', 'shell did not open', clock.wall(), clock.monotonic());
    registry.readings.failed('android/W1', 'shell did not open', clock.wall(), clock.monotonic());
    recovery.start();
    for (let i = 0; i < 10; i++) {
      time.advance(1_000);
      await recovery.settled();
    }
    await recovery.stop();
    const failed = log.lines().filter((l) => String(l.msg).startsWith('recovery action'));
    expect(failed.map((l) => l.msg)).toEqual([
      "recovery action kick of W1 failed: adb server answered 'closed'; the adb server did not carry out the kick, or the phone left adb meanwhile (check `adb devices` on this host); it counts against the hourly limit and is tried again after the kick cooldown",
    ]);
  });
});
