// Recovery never power-cycles the port of a phone under Advanced Protection
// (Android 16): a locked one takes a new USB connection as charge-only, and
// the lock of a phone that does not answer cannot be seen. Wedged past its
// kick, offline through its reconnects, or gone from USB: a person, with why;
// the same phone without it is cycled (the control), and so is one whose
// setting was not read (unknown: as before).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  OFFLINE_COOLDOWNS_BEFORE_CYCLE,
  OFFLINE_RECONNECTS_BEFORE_CYCLE,
  RecoveryPolicy,
  defaultRecoverySettings,
  type ListedDevice,
} from '../../../src/features/recovery/policy.js';
import { propertyRuns } from '../../support/property-runs.js';

const s = { ...defaultRecoverySettings, powerCycle: true };
const t = 2_000_000;
const port = { hub: '1-1.4', port: 3 };

/** Wedged and kicked once, past the kick's cooldown: a cycle is next. */
const wedged = (protectedUsb: boolean): ListedDevice => ({
  serial: 'A',
  state: 'device',
  failures: 3,
  failingSince: t - 10_000,
  hubPort: port,
  escalation: { kicks: [t - s.kickCooldownMs], cycles: [] },
  ...(protectedUsb && { chargeOnlyWhenLocked: true as const }),
});

/** Offline through its reconnects and long enough: a cycle is next. */
const offline = (protectedUsb: boolean): ListedDevice => ({
  serial: 'B',
  state: 'offline',
  hubPort: port,
  escalation: {
    kicks: [],
    cycles: [],
    offline: { since: t - OFFLINE_COOLDOWNS_BEFORE_CYCLE * s.offlineCooldownMs, reconnects: OFFLINE_RECONNECTS_BEFORE_CYCLE },
  },
  ...(protectedUsb && { chargeOnlyWhenLocked: true as const }),
});

/** Gone from USB on its own: a cycle is next. */
const unseen = (protectedUsb: boolean): ListedDevice => ({
  serial: 'C',
  state: 'device',
  failures: 3,
  failingSince: t - 10_000,
  hubPort: port,
  usb: { enumerated: false, port: '1-1.4.3', hub: '1-1.4', last: 'disconnected', at: t - 60_000 },
  escalation: { kicks: [], cycles: [] },
  ...(protectedUsb && { chargeOnlyWhenLocked: true as const }),
});

describe('recovery and Advanced Protection', () => {
  it('wedged past its kick, offline through its reconnects, or gone from USB: never a power cycle, a person with why', () => {
    const p = new RecoveryPolicy(s, []);
    const devices = [wedged(true), offline(true), unseen(true)];
    const actions = p.tick(devices, t, { cleared: 'all' });
    expect(actions.filter((a) => a.kind === 'power-cycle')).toEqual([]);
    const people = actions.filter((a) => a.kind === 'needs-person');
    expect(people.map((a) => a.serial).sort()).toEqual(['A', 'B', 'C']);
    for (const a of people)
      expect(a.kind === 'needs-person' && a.reason).toMatch(
        /hub 1-1\.4 port 3 is not power-cycled: it is under Advanced Protection, where a locked phone takes a new USB connection as charge-only .* a person must unlock it and replug it/,
      );
    expect(p.due(devices, t).map((d) => d.action)).not.toContain('power-cycle');
  });

  it('the same phones without it (off, or not read): cycled as before', () => {
    const p = new RecoveryPolicy(s, []);
    const actions = p.tick([wedged(false), offline(false), unseen(false)], t, { cleared: 'all' });
    expect(
      actions
        .filter((a) => a.kind === 'power-cycle')
        .map((a) => a.serial)
        .sort(),
    ).toEqual(['A', 'B', 'C']);
  });

  it('on generated looks: a phone under it is never power-cycled, whatever its state, history and the gate', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('device', 'offline'),
        fc.nat({ max: 8 }),
        fc.array(fc.nat({ max: 3_600_000 }), { maxLength: 3 }),
        fc.array(fc.nat({ max: 3_600_000 }), { maxLength: 3 }),
        fc.boolean(),
        (state, failures, kicksAgo, cyclesAgo, gone) => {
          const p = new RecoveryPolicy(s, []);
          const d: ListedDevice = {
            serial: 'P',
            state,
            failures,
            failingSince: t - 600_000,
            hubPort: port,
            chargeOnlyWhenLocked: true,
            escalation: {
              kicks: kicksAgo.map((a) => t - a).sort(),
              cycles: cyclesAgo.map((a) => t - a).sort(),
              ...(state === 'offline' && { offline: { since: t - 3_600_000, reconnects: 5 } }),
            },
            ...(gone && { usb: { enumerated: false as const, port: '1-1.4.3', hub: '1-1.4', last: 'disconnected', at: t - 60_000 } }),
          };
          return p.tick([d], t, { cleared: 'all' }).every((a) => a.kind !== 'power-cycle');
        },
      ),
      propertyRuns(300),
    );
  });
});
