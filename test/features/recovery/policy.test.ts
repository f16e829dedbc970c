import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../../support/property-runs.js';
import fc from 'fast-check';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { Escalations, historyOf } from '../../../src/features/recovery/escalations.js';
import { CountedStarts } from '../../../src/actions/counted-starts.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { connectBackoff, ConnectBackoffs } from '../../../src/features/recovery/connects.js';
import {
  HOUR_MS,
  OFFLINE_COOLDOWNS_BEFORE_CYCLE,
  OFFLINE_RECONNECTS_BEFORE_CYCLE,
  OFFLINE_RECONNECT_TARGET,
  RecoveryPolicy,
  defaultRecoverySettings,
  type Disruption,
  type ListedDevice,
  type RecoveryAction,
  type RecoverySettings,
} from '../../../src/features/recovery/policy.js';

/**
 * The policy as Recovery runs it: adb's list and the inventories' outcomes go
 * into a registry, which the policy reads, with recovery's memory of each
 * serial's offline run (Escalations), which outlives a record that drops off
 * the list, the kicks, cycles and offline reconnects counted as the runner
 * counts them when their work starts (its CountedStarts, at once here: the
 * work takes no time), and the connect backoff of the configured addresses,
 * which the plan's intents and the connects' outcomes move.
 */
class PolicyBed extends RecoveryPolicy {
  private readonly registry = new DeviceRegistry();
  private readonly escalations = new Escalations(this.registry, 'android');
  private readonly counted = new CountedStarts();
  private readonly offlineCooldownMs: number;
  private readonly backoffs: ConnectBackoffs;

  constructor(
    settings: RecoverySettings,
    networkDevices: readonly string[] = [],
    private readonly ports: ReadonlyMap<string, { hub: string; port: number }> = new Map(),
  ) {
    super(settings, networkDevices);
    this.offlineCooldownMs = settings.offlineCooldownMs;
    this.backoffs = new ConnectBackoffs(networkDevices, settings);
  }

  noteConnectOutcome(address: string, ok: boolean, now: number, held = false): void {
    this.backoffs.noteOutcome(address, ok, now, held);
  }

  size(): number {
    return this.backoffs.size;
  }

  noteShellOutcome(serial: string, ok: boolean, now = 0): void {
    const key = `android/${serial}`;
    if (ok)
      this.registry.readings.answered(
        key,
        { udid: serial, serialNumber: serial, state: 'device', status: 'AVAILABLE', platformName: 'ANDROID', isAndroid: true, isIos: false },
        now,
        now,
      );
    else this.registry.readings.failed(key, 'missed its deadline', now, now);
  }

  override tick(devices: readonly ListedDevice[], now: number): RecoveryAction[] {
    this.registry.sync('android', new Map(devices.map((d) => [d.serial, d.state])));
    const { escalations } = this;
    escalations.prune(now - HOUR_MS);
    escalations.listed(this.registry.list('android'), now);
    const listed = this.registry.list('android').map((r) => ({
      serial: r.serial,
      state: r.state,
      key: r.key,
      failures: r.failures,
      failingSince: r.failure?.first,
      hubPort: this.ports.get(r.serial),
      ...historyOf(this.counted.of(`kick ${r.serial}`, now), this.counted.of(`power-cycle ${r.serial}`, now), escalations.of(r.serial)?.offline),
    }));
    const last = this.counted.of(OFFLINE_RECONNECT_TARGET, now).at(-1)?.at;
    const facts = { connects: this.backoffs.view, ...(last !== undefined && { lastOfflineReconnect: last }) };
    const actions = this.backoffs.take(super.tick(listed, now, facts));
    for (const a of actions) {
      if (a.kind === 'reconnect-offline') {
        this.counted.count(OFFLINE_RECONNECT_TARGET, now, Math.max(HOUR_MS, this.offlineCooldownMs));
        for (const serial of a.serials) escalations.reconnected(serial);
      }
      if (a.kind !== 'kick' && a.kind !== 'power-cycle') continue;
      this.counted.count(`${a.kind} ${a.serial}`, now, HOUR_MS, this.registry.get(a.key)?.failures ?? 0);
      escalations.acted(a.serial, a.kind === 'kick' ? 'kick' : 'cycle', now, undefined);
    }
    return actions;
  }
}

// 10.0.0.5:5555 is a configured network device; 10.0.0.6:5555 was connected by someone else.
const serials = ['A', 'B', 'C', '10.0.0.5:5555', '10.0.0.6:5555'];
// Weighted towards ready devices and failing shells, so that runs of misses (kicks) are common.
const states = ['device', 'device', 'device', 'offline', 'unauthorized', 'gone'];

const eventOf = (listed: readonly string[]) =>
  fc.oneof(
    fc.record({ kind: fc.constant('shell' as const), serial: fc.constantFrom(...serials), ok: fc.integer({ min: 0, max: 3 }).map((n) => n === 0) }),
    fc.record({ kind: fc.constant('tick' as const), states: fc.array(fc.constantFrom(...listed), { minLength: 5, maxLength: 5 }) }),
    // held: adb answered "already connected" to the address it lists offline.
    fc.record({ kind: fc.constant('connect' as const), ok: fc.boolean(), held: fc.boolean() }),
  );
// Gaps of a few seconds (bursts of events, ticks) as often as long ones.
const stepOf = (listed: readonly string[]) =>
  fc.record({ dt: fc.oneof(fc.integer({ min: 0, max: 3_000 }), fc.integer({ min: 0, max: 120_000 })), e: eventOf(listed) });
const step = stepOf(states);
// Weighted towards offline (and dropped for a moment by a reconnect), so that offline runs last.
const offlineStep = stepOf(['offline', 'offline', 'offline', 'gone', 'device']);

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

// A and B have hub ports (settings: hubPorts), C has none.
const ports = new Map([
  ['A', { hub: '1-1', port: 1 }],
  ['B', { hub: '1-1', port: 2 }],
]);

type LogEntry = { now: number; kind: string; target: string; serials?: string[]; state?: string };

function run(steps: Step[], settings: RecoverySettings = defaultRecoverySettings) {
  const policy = new PolicyBed(settings, ['10.0.0.5:5555'], ports);
  let now = 1_000_000;
  const log: LogEntry[] = [];
  for (const { dt, e } of steps) {
    now += dt;
    if (e.kind === 'shell') policy.noteShellOutcome(e.serial, e.ok, now);
    else if (e.kind === 'connect') policy.noteConnectOutcome('10.0.0.5:5555', e.ok, now, e.held);
    else {
      const devices: ListedDevice[] = serials.flatMap((serial, i) => {
        const state = e.states[i];
        return state === undefined || state === 'gone' ? [] : [{ serial, state }];
      });
      // What adb lists, each look: the offline runs are judged from it.
      for (const d of devices) log.push({ now, kind: 'listed', target: d.serial, state: d.state });
      for (const a of policy.tick(devices, now)) {
        const target = a.kind === 'connect' ? a.address : a.kind === 'reconnect-offline' ? '' : a.kind === 'hub-lost' ? a.hub : a.serial;
        log.push({ now, kind: a.kind, target, ...(a.kind === 'reconnect-offline' ? { serials: a.serials } : {}) });
      }
    }
    // expect() only on a breach: vitest's expect() updates its assertion count on every call, which took the file from 3 s to 6 or 7.
    if (policy.size() > serials.length * 2 + 1) expect(policy.size()).toBeLessThanOrEqual(serials.length * 2 + 1);
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
      propertyRuns(300),
    );
  });

  it('power-cycles at most K an hour per phone, a cooldown apart; an offline phone only after N reconnects of one offline run and the minimum time', () => {
    // A short cooldown and a small budget, so that random runs reach the hourly bound.
    const settings = { ...defaultRecoverySettings, powerCycle: true, kickCooldownMs: 60_000, maxKicksPerHour: 2 };
    let offlineCycles = 0;
    fc.assert(
      fc.property(fc.array(fc.oneof(step, offlineStep), { maxLength: 400, size: 'max' }), (steps) => {
        const log = run(steps, settings);
        for (const s of serials) {
          const cycles = log.filter((a) => a.kind === 'power-cycle' && a.target === s).map((a) => a.now);
          // Only a phone with a hub port.
          if (!ports.has(s)) expect(cycles).toEqual([]);
          for (let i = 1; i < cycles.length; i++) expect(cycles[i]! - cycles[i - 1]!).toBeGreaterThanOrEqual(settings.kickCooldownMs);
          for (const t of cycles) expect(cycles.filter((u) => u > t - HOUR_MS && u <= t).length).toBeLessThanOrEqual(settings.maxKicksPerHour);
        }
        // A cycle of a phone listed offline: since its offline run began
        // (the last look that listed it answering) and its last cycle, N
        // reconnects of it, and the run at least the minimum time long.
        for (const [i, c] of log.entries()) {
          if (c.kind !== 'power-cycle') continue;
          const look = log.find((l) => l.kind === 'listed' && l.target === c.target && l.now === c.now);
          if (look?.state !== 'offline') continue;
          offlineCycles++;
          const before = log.slice(0, i);
          const answered = before.findLastIndex((l) => l.kind === 'listed' && l.target === c.target && l.state !== 'offline');
          const runStart = before.findIndex((l, j) => j > answered && l.kind === 'listed' && l.target === c.target && l.state === 'offline');
          expect(c.now - before[runStart]!.now).toBeGreaterThanOrEqual(OFFLINE_COOLDOWNS_BEFORE_CYCLE * settings.offlineCooldownMs);
          const lastCycle = before.findLastIndex((l) => l.kind === 'power-cycle' && l.target === c.target);
          const reconnects = before.filter((l, j) => j > Math.max(runStart, lastCycle) && l.kind === 'reconnect-offline' && l.serials!.includes(c.target));
          expect(reconnects.length).toBeGreaterThanOrEqual(OFFLINE_RECONNECTS_BEFORE_CYCLE);
          // The last of them had its whole cooldown to work.
          expect(c.now - reconnects.at(-1)!.now).toBeGreaterThanOrEqual(settings.offlineCooldownMs);
        }
      }),
      propertyRuns(300),
    );
    // Not vacuous: offline phones do get their ports cycled across the runs.
    expect(offlineCycles).toBeGreaterThan(0);
  });

  it('power-cycles the port of a phone two offline reconnects did not bring back, then asks for a person once the hour is spent', () => {
    const s = { ...defaultRecoverySettings, powerCycle: true, maxKicksPerHour: 1 };
    const p = new PolicyBed(s, [], ports);
    const off = [{ serial: 'A', state: 'offline' }];
    const cool = s.offlineCooldownMs;
    expect(p.tick(off, 0).map((a) => a.kind)).toEqual(['reconnect-offline']);
    // Dropped by adb for a moment, then offline again: the same run.
    p.tick([], 1_000);
    expect(p.tick(off, cool).map((a) => a.kind)).toEqual(['reconnect-offline']);
    // Two reconnects, but not yet two cooldowns offline: nothing.
    expect(p.tick(off, 2 * cool - 1)).toEqual([]);
    const [cycle] = p.tick(off, 2 * cool);
    expect(cycle).toMatchObject({
      kind: 'power-cycle',
      serial: 'A',
      hub: '1-1',
      port: 1,
      reason: expect.stringMatching(/still offline after 2 offline reconnects/),
    });
    // Still offline after the cycle: reconnects start again, counted afresh.
    expect(p.tick(off, 3 * cool).map((a) => a.kind)).toEqual(['reconnect-offline']);
    expect(p.tick(off, 4 * cool + s.kickCooldownMs).map((a) => a.kind)).toEqual(['reconnect-offline']);
    const [person, again] = p.tick(off, 5 * cool + s.kickCooldownMs);
    expect(person).toMatchObject({ kind: 'needs-person', reason: 'its port was power-cycled 1 times this hour and it is still offline' });
    expect(again?.kind).toBe('reconnect-offline');
    // Answering ends the run: offline again later starts from nothing.
    p.tick([{ serial: 'A', state: 'device' }], 6 * cool + s.kickCooldownMs);
    expect(p.tick(off, 7 * cool + s.kickCooldownMs).map((a) => a.kind)).toEqual(['reconnect-offline']);
  });

  it('gives the last reconnect a whole cooldown before the cycle, however long the phone has been offline', () => {
    const s = { ...defaultRecoverySettings, powerCycle: true };
    const p = new PolicyBed(s, [], ports);
    const off = [{ serial: 'A', state: 'offline' }];
    const cool = s.offlineCooldownMs;
    p.tick(off, 0);
    p.tick(off, 3 * cool);
    expect(p.tick(off, 4 * cool - 1)).toEqual([]);
    expect(p.tick(off, 4 * cool).map((a) => a.kind)).toEqual(['power-cycle']);
  });

  it('an offline phone past its reconnects, without power cycling (off, or no hub port), asks for a person, saying why', () => {
    for (const [powerCycle, serial, why] of [
      [false, 'A', /power cycling is off \(recovery\.powerCycle\)/],
      [true, 'C', /no hub port is set for it/],
    ] as const) {
      const p = new PolicyBed({ ...defaultRecoverySettings, powerCycle }, [], ports);
      const off = [{ serial, state: 'offline' }];
      const cool = defaultRecoverySettings.offlineCooldownMs;
      p.tick(off, 0);
      p.tick(off, cool);
      const actions = p.tick(off, 2 * cool);
      expect(actions).toEqual([
        { kind: 'needs-person', serial, key: `android/${serial}`, reason: expect.stringMatching(/offline for 2 min through 2 offline reconnects/) },
        expect.objectContaining({ kind: 'reconnect-offline' }),
      ]);
      expect(actions[0]).toMatchObject({ reason: expect.stringMatching(why) });
    }
  });

  it('reconnects an offline network device the agent connects, after a cooldown, and connects it again; one connected by hand never', () => {
    const p = new PolicyBed(defaultRecoverySettings, ['10.0.0.5:5555']);
    const off = [
      { serial: '10.0.0.5:5555', state: 'offline' },
      { serial: '10.0.0.6:5555', state: 'offline' },
    ];
    const cool = defaultRecoverySettings.offlineCooldownMs;
    // Offline while the connect's handshake may run: left alone.
    expect(p.tick(off, 0).filter((a) => a.kind === 'reconnect-offline')).toEqual([]);
    const actions = p.tick(off, cool);
    // Not adb's host-wide command: it would drop 10.0.0.6:5555 for good.
    expect(actions.find((a) => a.kind === 'reconnect-offline')).toMatchObject({ serials: ['10.0.0.5:5555'], all: false });
    expect(p.tick(off, cool + defaultRecoverySettings.connectBaseMs).filter((a) => a.kind === 'connect')).toEqual([
      { kind: 'connect', address: '10.0.0.5:5555', reason: 'listed as offline', listed: 'offline' },
    ]);
  });

  it('asks adb less and less often to connect an address it holds offline ("already connected"), and at once when it lets go', () => {
    const p = new PolicyBed(defaultRecoverySettings, ['10.0.0.5:5555']);
    const off = [{ serial: '10.0.0.5:5555', state: 'offline' }];
    const connects: number[] = [];
    // Ten minutes of a transport adb keeps offline: each connect answered "already connected".
    for (let now = 0; now <= 600_000; now += 1_000) {
      for (const a of p.tick(off, now)) {
        if (a.kind !== 'connect') continue;
        connects.push(now);
        p.noteConnectOutcome(a.address, true, now, true);
      }
    }
    // Every 2 s before (300 connects); now on the failure backoff (2 s doubling to 5 min), and once
    // after each offline reconnect (a minute apart), which makes adb drop the transport.
    const reconnects = 10;
    expect(connects.length).toBeLessThanOrEqual(reconnects + 10);
    // adb drops the transport (a reconnect, its timeout): connected again a base interval after the last try, not minutes later.
    const last = connects.at(-1)!;
    const dropped = last + 1_000;
    const again = [dropped, dropped + 1_000, dropped + 2_000].find((now) => p.tick([], now).some((a) => a.kind === 'connect'));
    expect(again).toBe(Math.max(dropped, last + defaultRecoverySettings.connectBaseMs));
    // Through, then offline again: the backoff starts over.
    p.tick([{ serial: '10.0.0.5:5555', state: 'device' }], dropped + 10_000);
    p.noteConnectOutcome('10.0.0.5:5555', true, dropped + 3_000, false);
    expect(connectBackoff(1, defaultRecoverySettings)).toBe(defaultRecoverySettings.connectBaseMs);
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
      propertyRuns(300),
    );
    for (let f = 0; f < 100; f++) expect(connectBackoff(f, defaultRecoverySettings)).toBeLessThanOrEqual(defaultRecoverySettings.connectMaxMs);
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
    expect(p.tick([{ serial: 'A', state: 'device' }], 3000)).toEqual([
      { kind: 'connect', address: '10.0.0.5:5555', reason: 'not listed by adb', listed: undefined },
    ]);
  });

  it('never connects a network device adb lists as ready or waiting for authorization', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300, size: 'max' }), (steps) => {
        const policy = new PolicyBed(defaultRecoverySettings, ['10.0.0.5:5555']);
        let now = 0;
        for (const { dt, e } of steps) {
          now += dt;
          if (e.kind === 'shell') policy.noteShellOutcome(e.serial, e.ok, now);
          else if (e.kind === 'connect') policy.noteConnectOutcome('10.0.0.5:5555', e.ok, now, e.held);
          else {
            const devices: ListedDevice[] = serials.flatMap((serial, i) => (e.states[i] === 'gone' ? [] : [{ serial, state: e.states[i]! }]));
            const listed = devices.find((d) => d.serial === '10.0.0.5:5555')?.state;
            const connects = policy.tick(devices, now).filter((a) => a.kind === 'connect');
            if (listed === 'device' || listed === 'unauthorized') expect(connects).toEqual([]);
          }
        }
      }),
      propertyRuns(300),
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

  it('reconnects offline USB devices only, one by one: an offline TCP device connected by hand is left to adb', () => {
    const p = new RecoveryPolicy(defaultRecoverySettings, []);
    expect(p.tick([{ serial: '10.0.0.9:5555', state: 'offline' }], 0)).toEqual([]);
    // adb's host-wide command would drop 10.0.0.9:5555 too, and adb would forget it.
    expect(
      p.tick(
        [
          { serial: '10.0.0.9:5555', state: 'offline' },
          { serial: 'R58M12AB', state: 'offline' },
        ],
        1,
      ),
    ).toEqual([{ kind: 'reconnect-offline', reason: '1 device(s) offline: R58M12AB', serials: ['R58M12AB'], all: false }]);
  });

  it('does not reconnect a phone that is offline because it was just kicked: the kick has its cooldown first', () => {
    const p = new RecoveryPolicy(defaultRecoverySettings, []);
    const kicked = { serial: 'R58M12AB', state: 'offline', escalation: { kicks: [1_500], cycles: [] } };
    // A second `adb -s R58M12AB reconnect` at the kick's own instant (found by the runner's property test).
    expect(p.tick([kicked], 1_500)).toEqual([]);
    expect(p.tick([kicked], 1_500 + defaultRecoverySettings.kickCooldownMs)).toMatchObject([{ kind: 'reconnect-offline', serials: ['R58M12AB'] }]);
  });

  it("uses adb's host-wide reconnect only when it would drop no other device: adb 29 drops an unauthorized one too", () => {
    const p = new RecoveryPolicy(defaultRecoverySettings, []);
    const offline = { serial: 'R58M12AB', state: 'offline' };
    expect(p.tick([offline, { serial: 'R58M12AC', state: 'device' }], 0)).toMatchObject([{ kind: 'reconnect-offline', all: true }]);
    const cool = defaultRecoverySettings.offlineCooldownMs;
    expect(p.tick([offline, { serial: 'R58M12AD', state: 'unauthorized' }], cool)).toMatchObject([
      { kind: 'reconnect-offline', serials: ['R58M12AB'], all: false },
    ]);
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

  it('a port whose cycle cannot work (blocked) is not cycled: a wedged or offline phone asks for a person, saying what was tried and why', () => {
    const s = { ...defaultRecoverySettings, powerCycle: true };
    const p = new RecoveryPolicy(s, []);
    const blocked = { hub: '1-1.4', port: 3, blocked: 'the hub tool finds no hub at that location: No compatible devices detected at location 1-1.4!' };
    const t = 2_000_000;
    // Wedged, kicked once, past the cooldown: a cycle would be next.
    const wedged: ListedDevice = {
      serial: 'A',
      state: 'device',
      failures: 3,
      failingSince: t - 10_000,
      hubPort: blocked,
      escalation: { kicks: [t - s.kickCooldownMs], cycles: [t - s.kickCooldownMs + 1] },
    };
    // Offline through its reconnects and long enough: a cycle would be next.
    const offline: ListedDevice = {
      serial: 'B',
      state: 'offline',
      hubPort: blocked,
      escalation: {
        kicks: [],
        cycles: [],
        offline: { since: t - OFFLINE_COOLDOWNS_BEFORE_CYCLE * s.offlineCooldownMs, reconnects: OFFLINE_RECONNECTS_BEFORE_CYCLE },
      },
    };
    const asked = p.due([wedged, offline], t + s.kickCooldownMs).map((d) => d.action);
    const actions = p.tick([wedged, offline], t + s.kickCooldownMs, { cleared: 'all' });
    expect(actions.filter((a) => a.kind === 'power-cycle')).toEqual([]);
    const people = actions.filter((a) => a.kind === 'needs-person');
    expect(people.map((a) => a.serial).sort()).toEqual(['A', 'B']);
    for (const a of people)
      expect(a.reason).toBe(
        `power-cycling hub 1-1.4 port 3 cannot work (${blocked.blocked}); it is not tried again until the settings or the hub's port listing change`,
      );
    expect(asked).not.toContain('power-cycle');
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
    const d: ListedDevice = {
      serial: 'A',
      state: 'device',
      failures: 3,
      failingSince: 0,
      hubPort: { hub: '1-1', port: 1 },
      escalation: { kicks: [0], cycles: [] },
    };
    expect(p.due([d], 600_000)).toEqual([{ key: 'A', serial: 'A', action: 'power-cycle' }]);
    expect(p.tick([d], 600_000, { cleared: new Map() })).toEqual([]);
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

describe('RecoveryPolicy: the booking gate as values', () => {
  // Listed devices as recovery reads them, with histories in the last hour: A and B behind hub ports, C not, one network address.
  const listedOf = (now: number) =>
    fc
      .record({
        serial: fc.constantFrom('A', 'B', 'C', '10.0.0.5:5555'),
        state: fc.constantFrom('device', 'device', 'offline', 'unauthorized'),
        failures: fc.integer({ min: 0, max: 8 }),
        kicksAgo: fc.array(fc.integer({ min: 1, max: HOUR_MS }), { maxLength: 4 }),
        cyclesAgo: fc.array(fc.integer({ min: 1, max: HOUR_MS }), { maxLength: 4 }),
        offline: fc.option(fc.record({ ago: fc.integer({ min: 0, max: 600_000 }), reconnects: fc.integer({ min: 0, max: 4 }) }), { nil: undefined }),
      })
      .map((d): ListedDevice => ({
        serial: d.serial,
        state: d.state,
        key: `android/${d.serial}`,
        failures: d.failures,
        failingSince: now - 600_000,
        ...(d.serial === 'A' || d.serial === 'B' ? { hubPort: { hub: '1-1', port: d.serial === 'A' ? 1 : 2 } } : {}),
        escalation: {
          kicks: d.kicksAgo.map((a) => now - a).sort((x, y) => x - y),
          cycles: d.cyclesAgo.map((a) => now - a).sort((x, y) => x - y),
          ...(d.state === 'offline' && d.offline && { offline: { since: now - d.offline.ago, reconnects: d.offline.reconnects } }),
        },
      }));
  const look = fc.record({
    dt: fc.oneof(fc.integer({ min: 0, max: 5_000 }), fc.integer({ min: 0, max: 400_000 })),
    devices: fc.uniqueArray(listedOf(10 * HOUR_MS), { selector: (d) => d.serial, maxLength: 4 }),
    // The gate's answer on each disruption due, in turn; past the list, not free.
    answers: fc.array(fc.boolean(), { maxLength: 8 }),
    connected: fc.option(fc.boolean(), { nil: undefined }),
  });
  const isDisruption = (kind: string): kind is Disruption => kind === 'kick' || kind === 'power-cycle' || kind === 'reconnect-offline';

  it('due() changes nothing, and a tick takes exactly the disruptions due that the gate cleared, on virtual time', () => {
    fc.assert(
      fc.property(fc.array(look, { maxLength: 40 }), (looks) => {
        const settings = { ...defaultRecoverySettings, powerCycle: true };
        // One policy is asked what is due before each tick, its twin is not: they must decide alike.
        const asked = new RecoveryPolicy(settings, ['10.0.0.5:5555']);
        const twin = new RecoveryPolicy(settings, ['10.0.0.5:5555']);
        // What recovery keeps of each between looks: the connect backoff.
        const askedBackoffs = new ConnectBackoffs(['10.0.0.5:5555'], settings);
        const twinBackoffs = new ConnectBackoffs(['10.0.0.5:5555'], settings);
        const time = new VirtualTime();
        const clock = time.clock();
        for (const l of looks) {
          time.advance(l.dt);
          // The devices were drawn about 10 h in; shifted onto the clock's time line.
          const now = 10 * HOUR_MS + clock.monotonic();
          const devices = l.devices;
          const due = asked.due(devices, now, { connects: askedBackoffs.view });
          expect(asked.due(devices, now, { connects: askedBackoffs.view })).toEqual(due);
          const cleared = new Map<string, Set<Disruption>>();
          due.forEach((d, i) => {
            if (l.answers[i] === true) cleared.set(d.key, (cleared.get(d.key) ?? new Set<Disruption>()).add(d.action));
          });
          const actions = askedBackoffs.take(asked.tick(devices, now, { cleared, connects: askedBackoffs.view }));
          expect(twinBackoffs.take(twin.tick(devices, now, { cleared, connects: twinBackoffs.view }))).toEqual(actions);
          for (const a of actions) {
            if (!isDisruption(a.kind)) continue;
            const serials = a.kind === 'reconnect-offline' ? a.serials : [(a as { serial: string }).serial];
            for (const serial of serials) {
              const key = `android/${serial}`;
              expect(due).toContainEqual({ key, serial, action: a.kind });
              expect(cleared.get(key)?.has(a.kind)).toBe(true);
            }
          }
          if (l.connected !== undefined) {
            askedBackoffs.noteOutcome('10.0.0.5:5555', l.connected, now);
            twinBackoffs.noteOutcome('10.0.0.5:5555', l.connected, now);
          }
        }
      }),
      propertyRuns(300),
    );
  });
});
