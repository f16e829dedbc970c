import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/load.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { BookingGate } from '../../src/recovery/booking-gate.js';
import { ChargeControl } from '../../src/recovery/charge.js';
import type { PortSwitch } from '../../src/recovery/uhubctl.js';
import { AgentStats } from '../../src/status/stats.js';
import { VirtualTime } from '../../src/util/clock.js';
import { captureLogger } from '../log/capture.js';

describe('charge control: the way per phone', () => {
  it("switches each phone's port through its own way, and leaves a phone whose way has no switch alone", async () => {
    const clock = new VirtualTime().clock({ seed: 1 });
    const switched: string[] = [];
    const tool = (name: string): PortSwitch => ({
      switch: (hub, port, power) => {
        switched.push(`${name} ${hub}:${port} ${power}`);
        return Promise.resolve('');
      },
    });
    const registry = new DeviceRegistry();
    const env = { DEVICE_AGENT_CHARGE_WAYS: 'model:Model C*=command,UH=uhubctl', DEVICE_AGENT_CHARGE_COMMAND: 'hub-power {hub} {port} {action}' };
    const control = new ChargeControl({
      registry,
      settings: loadSettings({ env }),
      hubPorts: new Map([
        ['UC', { hub: '1-1', port: 1 }],
        ['UH', { hub: '1-1', port: 2 }],
      ]),
      ports: { uhubctl: tool('uhubctl'), command: tool('command') },
      gate: new BookingGate({ cacheMs: 10_000, maxRequestsPerMinute: 4 }, clock),
      booking: { ask: () => Promise.resolve({ booked: false }) },
      stats: new AgentStats(),
      logger: captureLogger().logger,
      clock,
    });
    registry.sync(
      'android',
      new Map([
        ['SC', 'device'],
        ['SH', 'device'],
      ]),
    );
    for (const [serial, udid, model] of [
      ['SC', 'UC', 'Model C1'],
      ['SH', 'UH', 'Model H'],
    ] as const)
      registry.answered(
        `android/${serial}`,
        {
          udid,
          serialNumber: serial,
          state: 'device',
          status: 'AVAILABLE',
          platformName: 'Android',
          isAndroid: true,
          isIos: false,
          modelName: model,
          battery: { percentage: '95' },
        },
        clock.wall(),
        0,
      );
    control.start();
    await control.settled();
    expect(switched.sort()).toEqual(['command 1-1:1 off', 'uhubctl 1-1:2 off']);
    expect(registry.charge.of('SC')?.pause?.way).toBe('command');
    await control.stop();
    expect(switched.slice(2).sort()).toEqual(['command 1-1:1 on', 'uhubctl 1-1:2 on']);
  });
});
