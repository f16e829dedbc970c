import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DeviceRegistry } from '../../src/devices/registry.js';
import {
  HOUR_MS,
  RecoveryPolicy,
  defaultRecoverySettings,
  type ListedDevice,
  type RecoveryAction,
  type RecoverySettings,
} from '../../src/recovery/recovery-policy.js';

/**
 * The policy as Recovery runs it: adb's list and the inventories' outcomes go
 * into a registry, which the policy reads, with the registry's memory of the
 * kicks by serial (Escalations), which outlives a record that drops off the list.
 */
class PolicyBed extends RecoveryPolicy {
  private readonly registry = new DeviceRegistry();

  constructor(settings: RecoverySettings, networkDevices: readonly string[] = []) {
    super(settings, networkDevices);
  }

  noteShellOutcome(serial: string, ok: boolean, now = 0): void {
    const key = `android/${serial}`;
    if (ok)
      this.registry.answered(
        key,
        { udid: serial, serialNumber: serial, state: 'device', status: 'AVAILABLE', platformName: 'ANDROID', isAndroid: true, isIos: false },
        now,
        now,
      );
    else this.registry.failed(key, 'missed its deadline', now, now);
  }

  override tick(devices: readonly ListedDevice[], now: number): RecoveryAction[] {
    this.registry.sync('android', new Map(devices.map((d) => [d.serial, d.state])));
    const { escalations } = this.registry;
    escalations.prune(now - HOUR_MS);
    const listed = this.registry.list('android').map((r) => ({
      serial: r.serial,
      state: r.state,
      key: r.key,
      failures: r.failures,
      failingSince: r.failure?.first,
      kicks: r.kicks,
      escalation: escalations.of(r.serial),
    }));
    const actions = super.tick(listed, now);
    for (const a of actions) {
      if (a.kind !== 'kick') continue;
      this.registry.kicked(a.key, now);
      escalations.note(a.serial, 'kick', now, undefined);
    }
    return actions;
  }
}

// 10.0.0.5:5555 is a configured network device; 10.0.0.6:5555 was connected by someone else.
const serials = ['A', 'B', 'C', '10.0.0.5:5555', '10.0.0.6:5555'];
// Weighted towards ready devices and failing shells, so that runs of misses (kicks) are common.
const states = ['device', 'device', 'device', 'offline', 'unauthorized', 'gone'];

const event = fc.oneof(
  fc.record({ kind: fc.constant('shell' as const), serial: fc.constantFrom(...serials), ok: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }),
  fc.record({ kind: fc.constant('tick' as const), states: fc.array(fc.constantFrom(...states), { minLength: 5, maxLength: 5 }) }),
  fc.record({ kind: fc.constant('connect' as const), ok: fc.boolean() }),
);
// Gaps of a few seconds (bursts of events, ticks) as often as long ones.
const step = fc.record({ dt: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 120_000 })), e: event });

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function run(steps: Step[]) {
  const policy = new PolicyBed(defaultRecoverySettings, ['10.0.0.5:5555']);
  let now = 1_000_000;
  const log: { now: number; kind: string; target: string }[] = [];
  for (const { dt, e } of steps) {
    now += dt;
    if (e.kind === 'shell') policy.noteShellOutcome(e.serial, e.ok, now);
    else if (e.kind === 'connect') policy.noteConnectOutcome('10.0.0.5:5555', e.ok, now);
    else {
      const devices: ListedDevice[] = serials.flatMap((serial, i) => {
        const state = e.states[i];
        return state === undefined || state === 'gone' ? [] : [{ serial, state }];
      });
      for (const a of policy.tick(devices, now)) {
        log.push({ now, kind: a.kind, target: a.kind === 'kick' ? a.serial : a.kind === 'connect' ? a.address : '' });
      }
    }
    expect(policy.size()).toBeLessThanOrEqual(serials.length * 2 + 1);
  }
  return log;
}

describe('RecoveryPolicy', () => {
  it('kicks a ready device only after N misses in a row, with cooldown and at most K an hour', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400, size: 'max' }), (steps) => {
        const log = run(steps);
        for (const s of serials) {
          const kicks = log.filter((a) => a.kind === 'kick' && a.target === s).map((a) => a.now);
          for (let i = 1; i < kicks.length; i++) expect(kicks[i]! - kicks[i - 1]!).toBeGreaterThanOrEqual(defaultRecoverySettings.kickCooldownMs);
          for (const t of kicks) {
            expect(kicks.filter((u) => u > t - 3_600_000 && u <= t).length).toBeLessThanOrEqual(defaultRecoverySettings.maxKicksPerHour);
          }
        }
        // A TCP device the agent does not connect is never kicked: adb would forget it for good.
        expect(log.filter((a) => a.kind === 'kick' && a.target === '10.0.0.6:5555')).toEqual([]);
        const offline = log.filter((a) => a.kind === 'reconnect-offline').map((a) => a.now);
        for (let i = 1; i < offline.length; i++) expect(offline[i]! - offline[i - 1]!).toBeGreaterThanOrEqual(defaultRecoverySettings.offlineCooldownMs);
      }),
      { numRuns: 300 },
    );
  });

  it('connect attempts are at least the base interval apart, except the one right after a kick', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400, size: 'max' }), (steps) => {
        const log = run(steps);
        const connects = log.filter((a) => a.kind === 'connect');
        for (let i = 1; i < connects.length; i++) {
          const kickedBetween = log.some(
            (a) => a.kind === 'kick' && a.target === connects[i]!.target && a.now > connects[i - 1]!.now && a.now <= connects[i]!.now,
          );
          if (!kickedBetween) expect(connects[i]!.now - connects[i - 1]!.now).toBeGreaterThanOrEqual(defaultRecoverySettings.connectBaseMs);
        }
      }),
      { numRuns: 300 },
    );
    const p = new RecoveryPolicy(defaultRecoverySettings, []);
    for (let f = 0; f < 100; f++) expect(p.backoff(f)).toBeLessThanOrEqual(defaultRecoverySettings.connectMaxMs);
  });

  it('kicks after exactly N consecutive misses and reconnects the network device after its kick', () => {
    const p = new PolicyBed(defaultRecoverySettings, ['10.0.0.5:5555']);
    const ready = [
      { serial: '10.0.0.5:5555', state: 'device' },
      { serial: 'A', state: 'device' },
    ];
    expect(p.tick(ready, 0)).toEqual([]);
    p.noteShellOutcome('10.0.0.5:5555', false);
    p.noteShellOutcome('10.0.0.5:5555', false);
    p.noteShellOutcome('A', false);
    p.noteShellOutcome('A', true);
    expect(p.tick(ready, 1000)).toEqual([]);
    p.noteShellOutcome('10.0.0.5:5555', false);
    const actions = p.tick(ready, 2000);
    expect(actions.map((a) => a.kind)).toEqual(['kick']);
    // After the kick adb forgets it: the next tick connects it again.
    expect(p.tick([{ serial: 'A', state: 'device' }], 3000)).toEqual([{ kind: 'connect', address: '10.0.0.5:5555', reason: 'not listed by adb' }]);
  });

  it('never connects a network device adb lists as ready or waiting for authorization', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300, size: 'max' }), (steps) => {
        const policy = new PolicyBed(defaultRecoverySettings, ['10.0.0.5:5555']);
        let now = 0;
        for (const { dt, e } of steps) {
          now += dt;
          if (e.kind === 'shell') policy.noteShellOutcome(e.serial, e.ok, now);
          else if (e.kind === 'connect') policy.noteConnectOutcome('10.0.0.5:5555', e.ok, now);
          else {
            const devices: ListedDevice[] = serials.flatMap((serial, i) => (e.states[i] === 'gone' ? [] : [{ serial, state: e.states[i]! }]));
            const listed = devices.find((d) => d.serial === '10.0.0.5:5555')?.state;
            const connects = policy.tick(devices, now).filter((a) => a.kind === 'connect');
            if (listed === 'device' || listed === 'unauthorized') expect(connects).toEqual([]);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('kicks a wedged TCP device only when it is a network device the agent connects again', () => {
    const p = new PolicyBed(defaultRecoverySettings, ['10.0.0.5:5555']);
    const ready = [
      { serial: '10.0.0.5:5555', state: 'device' },
      { serial: '10.0.0.6:5555', state: 'device' },
    ];
    expect(p.tick(ready, 0)).toEqual([]);
    for (let i = 0; i < 3; i++) {
      p.noteShellOutcome('10.0.0.5:5555', false);
      p.noteShellOutcome('10.0.0.6:5555', false);
    }
    expect(p.tick(ready, 1).map((a) => (a.kind === 'kick' ? a.serial : a.kind))).toEqual(['10.0.0.5:5555']);
  });

  it('reconnects offline USB devices only: an offline TCP device is left to adb', () => {
    const p = new RecoveryPolicy(defaultRecoverySettings, []);
    expect(p.tick([{ serial: '10.0.0.9:5555', state: 'offline' }], 0)).toEqual([]);
    expect(
      p.tick(
        [
          { serial: '10.0.0.9:5555', state: 'offline' },
          { serial: 'R58M12AB', state: 'offline' },
        ],
        1,
      ),
    ).toEqual([{ kind: 'reconnect-offline', reason: '1 device(s) offline: R58M12AB', serials: ['R58M12AB'], all: true }]);
  });

  it('never kicks again once the hourly budget is spent, even when the clock jumps back', () => {
    const s = { ...defaultRecoverySettings, kickCooldownMs: 0, maxKicksPerHour: 2, kickAfterFailures: 1 };
    const p = new PolicyBed(s);
    const ready = [{ serial: 'A', state: 'device' }];
    let kicks = 0;
    for (let t = 0; t < 10; t++) {
      p.noteShellOutcome('A', false, 10_000 + t);
      kicks += p.tick(ready, 10_000 + t).filter((a) => a.kind === 'kick').length;
    }
    expect(kicks).toBe(2);
  });

  it('power-cycles the port of a phone a kick did not bring back, after the cooldown, at most K an hour, then asks for a person', () => {
    const s = { ...defaultRecoverySettings, powerCycle: true };
    const p = new RecoveryPolicy(s, []);
    const port = { hub: '1-1.4', port: 3 };
    const wedged = (now: number, escalation: ListedDevice['escalation']): ListedDevice => ({
      serial: 'A',
      state: 'device',
      failures: 3,
      failingSince: now - 10_000,
      hubPort: port,
      escalation,
    });
    const kinds = (now: number, escalation: ListedDevice['escalation']) => p.tick([wedged(now, escalation)], now).map((a) => a.kind);
    // Never kicked: a kick first.
    expect(kinds(1_000_000, undefined)).toEqual(['kick']);
    // Kicked and wedged again: nothing within the kick's cooldown, then the power cycle.
    expect(kinds(1_000_000 + s.kickCooldownMs - 1, { kicks: [1_000_000], cycles: [] })).toEqual([]);
    const [cycle] = p.tick([wedged(1_000_000 + s.kickCooldownMs, { kicks: [1_000_000], cycles: [] })], 1_000_000 + s.kickCooldownMs);
    expect(cycle).toMatchObject({ kind: 'power-cycle', serial: 'A', hub: '1-1.4', port: 3 });
    // The hour's cycles spent: a person is needed, nothing disruptive.
    const t = 2_000_000;
    const spent = { kicks: [t - 50 * 60_000], cycles: [t - 40 * 60_000, t - 30 * 60_000, t - 20 * 60_000] };
    const [person] = p.tick([wedged(t, spent)], t);
    expect(person).toMatchObject({ kind: 'needs-person', reason: expect.stringMatching(/power-cycled 3 times this hour/) });
    // An hour after the kick, the kick comes first again.
    expect(kinds(1_000_000 + 3_600_000, { kicks: [1_000_000], cycles: [] })).toEqual(['kick']);
  });

  it('without power cycling (off, or no hub port), a phone past its kicks asks for a person, saying why', () => {
    for (const [powerCycle, why] of [
      [false, /power cycling is off/],
      [true, /no hub port is set for it/],
    ] as const) {
      const p = new RecoveryPolicy({ ...defaultRecoverySettings, powerCycle }, []);
      const kicks = [
        { at: 0, failures: 0 },
        { at: 600_000, failures: 0 },
        { at: 1_200_000, failures: 0 },
      ];
      const actions = p.tick([{ serial: 'A', state: 'device', failures: 3, failingSince: 1_500_000, kicks }], 1_800_000);
      expect(actions).toEqual([{ kind: 'needs-person', serial: 'A', key: 'A', reason: expect.stringMatching(why) }]);
    }
  });

  it('asks the booking gate about a power cycle as about a kick', () => {
    const p = new RecoveryPolicy({ ...defaultRecoverySettings, powerCycle: true }, []);
    const asked: string[] = [];
    const d: ListedDevice = {
      serial: 'A',
      state: 'device',
      failures: 3,
      failingSince: 0,
      hubPort: { hub: '1-1', port: 1 },
      escalation: { kicks: [0], cycles: [] },
    };
    expect(p.tick([d], 600_000, (_d, action) => (asked.push(action), false))).toEqual([]);
    expect(asked).toEqual(['power-cycle']);
  });

  it("keeps the kick cooldown for a phone that dropped off adb's list and came back as a new record", () => {
    const p = new PolicyBed(defaultRecoverySettings);
    const ready = [{ serial: 'A', state: 'device' }];
    p.tick(ready, 0);
    for (let i = 0; i < 3; i++) p.noteShellOutcome('A', false);
    expect(p.tick(ready, 0).map((a) => a.kind)).toEqual(['kick']);
    p.tick([], 1);
    p.tick(ready, 2);
    for (let i = 0; i < 3; i++) p.noteShellOutcome('A', false, 2);
    expect(p.tick(ready, 3)).toEqual([]);
    expect(p.tick(ready, defaultRecoverySettings.kickCooldownMs).map((a) => a.kind)).toEqual(['kick']);
  });
});
