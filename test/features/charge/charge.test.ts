import { ACTIONS_REFUSED } from '../../../src/actions/trust.js';
import { describe, expect, it } from 'vitest';
import { CHARGE_ENDS } from '../../../src/features/charge/charge.js';
import { ChargePauses } from '../../../src/features/charge/pauses.js';
import { chargeBed } from './charge-bed.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';
import { captureLogger } from '../../log/capture.js';
import type { PausedPort } from '../../../src/features/charge/paused-ports.js';
import type { PortSwitch } from '../../../src/hub/uhubctl.js';

describe('charge control: the way per phone', () => {
  it("switches each phone's port through its own way, on the way and at stop", async () => {
    const { control, registry, switched, answered } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'model:Model C*=command,UH=uhubctl', DEVICE_AGENT_CHARGE_COMMAND: 'hub-power {hub} {port} {action}' },
      { UC: { hub: '1-1', port: 1 }, UH: { hub: '1-1', port: 2 } },
    );
    answered('SC', 'UC', 95, 'Model C1');
    answered('SH', 'UH', 95, 'Model H');
    control.start();
    await control.settled();
    expect(switched.sort()).toEqual(['command 1-1:1 off', 'uhubctl 1-1:2 off']);
    expect(new ChargePauses(registry, 'android').of('SC')?.pause?.way).toBe('command');
    await control.stop();
    expect(switched.slice(2).sort()).toEqual(['command 1-1:1 on', 'uhubctl 1-1:2 on']);
  });
});

describe('charge control: whose port a pause switches (issue 35)', () => {
  it('pauses no port for a phone that gives the udid of the one behind it: neither while both give it, nor the impostor alone elsewhere on the USB tree', async () => {
    const stats = new AgentStats();
    const log = captureLogger();
    const { control, registry, switched, answered } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'VICTIM01=uhubctl' },
      { VICTIM01: { hub: '1-1.4', port: 3 } },
      { stats, logger: log.logger },
    );
    answered('VICTIM01', 'VICTIM01', 100);
    answered('FAKE0001', 'VICTIM01', 100);
    registry.setUsb(
      'android',
      new Map([
        ['VICTIM01', { usb: '1-1.4.3' }],
        ['FAKE0001', { usb: '1-1.3' }],
      ]),
    );
    control.start();
    await control.settled();
    expect(switched).toEqual([]);
    expect(stats.counter(ACTIONS_REFUSED).get('charge_pause')).toBe(2);
    // Looked at again and again, the same refusals are said and counted once each.
    for (let i = 0; i < 3; i++) {
      control.devicesChanged();
      await control.settled();
    }
    expect(stats.counter(ACTIONS_REFUSED).get('charge_pause')).toBe(2);
    expect(log.lines().filter((l) => String(l.msg).startsWith('not pausing the charge of VICTIM01'))).toHaveLength(2);

    // The victim unplugged: the impostor alone with its udid is still not behind the port.
    registry.sync('android', new Map([['FAKE0001', 'device']]));
    control.devicesChanged();
    await control.settled();
    expect(switched).toEqual([]);
    await control.stop();
  });
});

describe('charge control: a phone under Advanced Protection', () => {
  it('is never paused: switching its port on again would be a new USB connection, charge-only while it is locked; said once, its port left alone', async () => {
    const stats = new AgentStats();
    const log = captureLogger();
    const { control, switched, answered } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'GUARDED1=uhubctl,PLAIN001=uhubctl' },
      { GUARDED1: { hub: '1-1', port: 1 }, PLAIN001: { hub: '1-1', port: 2 } },
      {
        stats,
        logger: log.logger,
        facts: {
          pageSize: () => undefined,
          authorizationWindowMs: () => undefined,
          advancedProtection: (_r, key) => (key === 'android/GUARDED1' ? 'on' : 'off'),
        },
      },
    );
    answered('GUARDED1', 'GUARDED1', 100);
    answered('PLAIN001', 'PLAIN001', 100);
    control.start();
    await control.settled();
    for (let i = 0; i < 3; i++) {
      control.devicesChanged();
      await control.settled();
    }
    expect(switched).toEqual(['uhubctl 1-1:2 off']);
    expect(stats.counter(ACTIONS_REFUSED).get('charge_pause')).toBe(1);
    const lines = log.lines().filter((l) => String(l.msg).startsWith('not pausing the charge of GUARDED1'));
    expect(lines).toHaveLength(1);
    expect(String(lines[0]!.msg)).toMatch(/Advanced Protection.*charge-only.*its hub port is left as it is/);
    await control.stop();
  });
});

// Moved from test/e2e/charge-control.test.ts, which keeps the pause and its
// end at the longest time through the real adb server and the stand-in
// uhubctl: a booking seen during a pause ends it at the next look.
describe('charge control: a booking during a pause', () => {
  it('switches the port on at once when the cloud books the phone, not at the longest pause', async () => {
    const booked = new Set<string>();
    const log = captureLogger('info');
    const stats = new AgentStats();
    const { control, switched, answered, time } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'CHARGE02=uhubctl', DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS: '600' },
      { CHARGE02: { hub: '1-1.4', port: 3 } },
      { booking: { ask: (id) => Promise.resolve({ booked: booked.has(id) }) }, logger: log.logger, stats },
    );
    answered('S02', 'CHARGE02', 85);
    control.start();
    await control.settled();
    expect(switched).toEqual(['uhubctl 1-1.4:3 off']);
    booked.add('CHARGE02');
    const from = time.now;
    while (switched.length < 2 && time.now - from < 600_000) {
      time.advance(1_000);
      await control.settled();
    }
    expect(switched).toEqual(['uhubctl 1-1.4:3 off', 'uhubctl 1-1.4:3 on']);
    // The gate's answer stands its cache time and charge control looks every few seconds: seconds, not the 600 s of the longest pause.
    expect(time.now - from).toBeLessThan(15_000);
    expect(log.lines().some((l) => /ending the charge pause of CHARGE02: the cloud says it is booked/.test(String(l.msg)))).toBe(true);
    expect(stats.counter(CHARGE_ENDS).get('booked')).toBe(1);
    await control.stop();
  });
});

describe('charge control: stopping, on the injected clock (issue 41)', () => {
  it('waits for the paused ports to be on again for its bound of the clock, then gives up and keeps them as held off', async () => {
    const saved: PausedPort[][] = [];
    const switched: string[] = [];
    // The off switch works; the on switch never answers (a hung uhubctl).
    const hung: PortSwitch = {
      switch: (hub, port, power) => {
        switched.push(`${hub}:${port} ${power}`);
        return power === 'on' ? new Promise<string>(() => {}) : Promise.resolve('');
      },
    };
    const { control, answered, time } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'U1=uhubctl' },
      { U1: { hub: '1-1', port: 1 } },
      { ports: { uhubctl: hung }, kept: { load: () => [], save: (ports) => void saved.push([...ports]) } },
    );
    answered('S1', 'U1', 95);
    control.start();
    await control.settled();
    expect(switched).toEqual(['1-1:1 off']);
    let stopped = false;
    const stopping = control.stop().then(() => (stopped = true));
    const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    await settle();
    expect(switched).toEqual(['1-1:1 off', '1-1:1 on']);
    time.advance(4_999);
    await settle();
    expect(stopped).toBe(false);
    time.advance(1);
    await settle();
    expect(stopped).toBe(true);
    await stopping;
    // Given up: the port is still off, and kept so that the next start switches it on.
    expect(saved.at(-1)).toEqual([{ hub: '1-1', port: 1, udid: 'U1', way: 'uhubctl' }]);
  });
});

describe('charge control: one switch of a port at a time (the runner keeps the mark)', () => {
  it('decides nothing for a phone while its off switch is in flight, and ends the pause for a booking once it has ended', async () => {
    const booked = new Set<string>();
    const log = captureLogger('info');
    const switched: string[] = [];
    let release = (): void => {};
    // The off switch hangs until released (a slow hub); the on switch answers at once.
    const slow: PortSwitch = {
      switch: (hub, port, power) => {
        switched.push(`${hub}:${port} ${power}`);
        return power === 'off' ? new Promise<string>((resolve) => (release = () => resolve(''))) : Promise.resolve('');
      },
    };
    const { control, answered, time } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'U1=uhubctl' },
      { U1: { hub: '1-1', port: 1 } },
      { ports: { uhubctl: slow }, booking: { ask: (id) => Promise.resolve({ booked: booked.has(id) }) }, logger: log.logger },
    );
    const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    answered('S1', 'U1', 95);
    control.start();
    for (let i = 0; i < 5; i++) await settle();
    expect(switched).toEqual(['1-1:1 off']);
    booked.add('U1');
    // Looks at every tick and change for 30 s: the booking is not acted on while the off switch hangs.
    for (let i = 0; i < 30; i++) {
      time.advance(1_000);
      control.devicesChanged();
      await settle();
    }
    expect(switched).toEqual(['1-1:1 off']);
    expect(log.lines().some((l) => String(l.msg).startsWith('ending the charge pause'))).toBe(false);
    release();
    const from = time.now;
    while (switched.length < 2 && time.now - from < 60_000) {
      time.advance(1_000);
      await control.settled();
    }
    expect(switched).toEqual(['1-1:1 off', '1-1:1 on']);
    expect(log.lines().filter((l) => String(l.msg).startsWith('ending the charge pause of U1: the cloud says it is booked'))).toHaveLength(1);
    await control.stop();
  });
});
