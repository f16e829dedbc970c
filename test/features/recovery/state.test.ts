import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { RecoveryPolicy, defaultRecoverySettings } from '../../../src/features/recovery/policy.js';
import { recoveryState } from '../../../src/features/recovery/state.js';
import { portHeldOff } from '../../../src/features/charge/pauses.js';
import { Escalations, historyOf } from '../../../src/features/recovery/escalations.js';

const pause = (ended?: { switchedOn: boolean }) =>
  ({
    udid: 'U',
    serial: '10.0.0.5:5555',
    way: 'uhubctl',
    hub: '1-1',
    port: 1,
    info: { udid: 'U' },
    percent: 85,
    since: 0,
    sinceWall: 0,
    until: 1,
    untilWall: 1,
    ...(ended && { ended: { why: 'max_time', at: 1, atWall: 1, waitUntil: 2, ...ended } }),
  }) as Parameters<typeof portHeldOff>[0]['pause'];

describe('recoveryState', () => {
  it('a phone offline because charge control holds its port off is neither reconnected nor power-cycled, and its offline run ends', () => {
    const escalations = new Escalations(new DeviceRegistry(), 'android');
    const policy = new RecoveryPolicy({ ...defaultRecoverySettings, powerCycle: true }, []);
    const look = (charge: Parameters<typeof recoveryState>[1], now: number) => {
      const state = recoveryState('offline', charge);
      escalations.listed([{ serial: 'R58M1', state }], now);
      const d = { serial: 'R58M1', state, hubPort: { hub: '1-1', port: 1 }, ...historyOf([], [], escalations.of('R58M1')?.offline) };
      return policy.tick([d], now).map((a) => a.kind);
    };
    // Held off from the pause's start, before its off switch has ended.
    const held = { pause: pause() };
    const cool = defaultRecoverySettings.offlineCooldownMs;
    for (let t = 0; t < 10; t++) expect(look(held, t * cool)).toEqual([]);
    expect(escalations.of('R58M1')).toBeUndefined();
    // Without the pause the same phone is reconnected at once.
    expect(look(undefined, 10 * cool)).toEqual(['reconnect-offline']);
    // A ready phone (Wi-Fi adb, charged from the hub) is left alone too: a power cycle would switch its port on mid-pause.
    expect(recoveryState('device', held)).toBe('charge-paused');
    expect(recoveryState('device', undefined)).toBe('device');
  });
});

describe('portHeldOff', () => {
  it('does not connect a network device again while its port is off on purpose, and does once it is on', () => {
    const address = '10.0.0.5:5555';
    const policy = new RecoveryPolicy(defaultRecoverySettings, [address]);
    const connects = (charge: Parameters<typeof portHeldOff>[0], now: number) =>
      policy.tick([], now, { portOff: portHeldOff(charge) ? new Set([address]) : new Set() }).filter((a) => a.kind === 'connect');
    const step = defaultRecoverySettings.connectMaxMs;
    expect(connects({ pause: pause() }, step)).toEqual([]);
    expect(connects({ pause: pause({ switchedOn: false }) }, 2 * step)).toEqual([]);
    // The port is on again: the phone needs a connect to come back.
    expect(connects({ pause: pause({ switchedOn: true }) }, 3 * step)).toHaveLength(1);
  });
});

describe('a wedged phone on Wi-Fi adb whose port a charge pause holds off', () => {
  it('is neither kicked nor power-cycled until its port is on again', () => {
    const policy = new RecoveryPolicy({ ...defaultRecoverySettings, powerCycle: true }, []);
    const wedged = (charge: Parameters<typeof recoveryState>[1]) => ({
      serial: 'R58W1',
      state: recoveryState('device', charge),
      failures: 10,
      failingSince: 0,
      hubPort: { hub: '1-1', port: 2 },
      escalation: { kicks: [1_000], cycles: [] },
    });
    const later = defaultRecoverySettings.kickCooldownMs + 10_000;
    expect(policy.tick([wedged({ pause: pause() })], later)).toEqual([]);
    expect(policy.tick([wedged(undefined)], later).map((a) => a.kind)).toEqual(['power-cycle']);
  });
});
