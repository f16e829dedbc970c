import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import type { CarriedKinds } from '../../../src/devices/presence.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import type { Feature } from '../../../src/features/context.js';
import type { ReportHeard } from '../../../src/devices/feature.js';
import { availabilityFeature } from '../../../src/features/availability/feature.js';
import { AVAILABILITY_FILE, clockFrom } from '../../../src/features/availability/store.js';
import { MAX_PHONES } from '../../../src/features/availability/clock.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { SharedParts } from '../../../src/util/shared-parts.js';
import { INCIDENT_LOG } from '../../../src/devices/incidents.js';
import { captureLogger } from '../../log/capture.js';
import { featureContext } from '../../support/feature-bed.js';
import { phone } from '../../agent/bed.js';
import { USB_EVIDENCE, type UsbEvidence } from '../../../src/devices/usb-evidence.js';
import { PortWords, seenOf } from '../../../src/features/usb/presence.js';

// The in-service clock as a feature: what it keeps in the state directory,
// what `list`, `doctor`, /metrics and the log show of it.

const MIN = 60_000;

function host(dir: string, time: VirtualTime, usb?: UsbEvidence) {
  const registry = new DeviceRegistry();
  const { logger, lines } = captureLogger('info');
  const clock = time.clock();
  // The flight recorder's log, as the availability feature adds to it: the state changes it notes.
  const notes: string[] = [];
  const shared = new SharedParts();
  shared.of(INCIDENT_LOG, () => ({ note: (_p, kind, text) => notes.push(`${kind}: ${text}`), incident: () => undefined }));
  if (usb) shared.of(USB_EVIDENCE, () => usb);
  const f: Feature = availabilityFeature(featureContext({ stateDir: dir, clock, registry, logger, shared }));
  /** What the report tells the timeline and the features of the cloud's answer. */
  const heard = (outcome: ReportHeard) => {
    if (outcome.delivered) registry.timeline.delivered(outcome.devices, outcome.failed, clock.monotonic());
    else registry.timeline.notDelivered(outcome.why, clock.monotonic());
    f.reported?.(outcome);
  };
  /** A source's whole listing, heard by the feature as the daemon hands it a source's change. */
  const sync = (listing: ReadonlyMap<string, string>) => {
    registry.sync('android', listing);
    f.changed?.([]);
  };
  /** Phones listed ready, each answering its inventory, and the cloud storing them as `status`. */
  const lab = (serials: string[], status: 'AVAILABLE' | 'UNAVAILABLE' = 'AVAILABLE') => {
    sync(new Map(serials.map((s) => [s, 'device'])));
    for (const s of serials) {
      registry.readings.answered(`android/${s}`, phone(s), clock.wall(), clock.monotonic());
      f.answered?.(registry.get(`android/${s}`)!);
    }
    const devices = serials.map((s) => ({ ...phone(s), status }));
    f.annotate?.(devices, new Map());
    heard({ delivered: true, devices, failed: [] });
  };
  const run = async (ms: number, each?: () => void) => {
    for (let t = 0; t < ms; t += 30_000) {
      time.advance(30_000);
      each?.();
    }
  };
  return { registry, f, lab, run, lines, clock, notes, heard, sync };
}

describe('the in-service clock as a feature', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps its counts across a restart, the time the agent did not run counted in transition and blamed on the host', async () => {
    dir = mkdtempSync(join(tmpdir(), 'avail-'));
    const time = new VirtualTime();
    const a = host(dir, time);
    await a.f.start?.();
    a.lab(['P1']);
    await a.run(10 * MIN, () => a.lab(['P1']));
    await a.f.stop?.();
    // The agent is down 30 minutes.
    time.advance(30 * MIN);
    const b = host(dir, time);
    await b.f.start?.();
    b.lab(['P1']);
    await b.run(10 * MIN, () => b.lab(['P1']));
    await b.f.stop?.();
    const kept = clockFrom(readFileSync(join(dir, AVAILABILITY_FILE), 'utf8'))!;
    const totals = kept.phones.find((p) => p.udid === 'P1')!.tally.totals;
    expect(totals.in_service).toBeGreaterThanOrEqual(19.5 * 60);
    expect(totals['in_transition:host']).toBeGreaterThanOrEqual(30 * 60);
    expect(totals['in_transition:host']).toBeLessThanOrEqual(31 * 60);
    expect(kept.host.totals.in_service).toBe(totals.in_service);
  });

  it('a file that is not its own: one warning, an empty count, replaced at the next save; a hand-edited field is dropped, not trusted', async () => {
    dir = mkdtempSync(join(tmpdir(), 'avail-'));
    const time = new VirtualTime();
    writeFileSync(join(dir, AVAILABILITY_FILE), 'not json at all\n');
    const a = host(dir, time);
    expect(a.lines().filter((l) => String(l.msg).includes('is not one the agent wrote'))).toHaveLength(1);
    await a.f.start?.();
    a.lab(['P1']);
    await a.run(6 * MIN, () => a.lab(['P1']));
    await a.f.stop?.();
    expect(clockFrom(readFileSync(join(dir, AVAILABILITY_FILE), 'utf8'))?.phones.map((p) => p.udid)).toEqual(['P1']);
    // A hand edit: a state the agent never writes, a slot it never writes, a negative count, a path for a port.
    const edited = JSON.parse(readFileSync(join(dir, AVAILABILITY_FILE), 'utf8')) as { phones: Array<Record<string, unknown>> };
    edited.phones.push({ udid: 'P2', serial: 'P2', state: 'broken', creditedAt: 1, tally: {} });
    edited.phones[0]!.port = '../../etc';
    (edited.phones[0]!.tally as { totals: Record<string, number> }).totals = { in_service: -5, 'in_service:phone': 9, 'gone:port': 12 };
    writeFileSync(join(dir, AVAILABILITY_FILE), JSON.stringify(edited));
    const kept = clockFrom(readFileSync(join(dir, AVAILABILITY_FILE), 'utf8'))!;
    expect(kept.phones.map((p) => p.udid)).toEqual(['P1']);
    expect(kept.phones[0]!.port).toBeUndefined();
    expect(kept.phones[0]!.tally.totals).toEqual({ 'gone:port': 12 });
  });

  it("shows each phone's last 24 hours in list, the host's in doctor with a warning under the threshold, and the counters on /metrics", async () => {
    dir = mkdtempSync(join(tmpdir(), 'avail-'));
    const time = new VirtualTime();
    const a = host(dir, time);
    await a.f.start?.();
    a.lab(['P1', 'P2']);
    await a.run(30 * MIN, () => a.lab(['P1', 'P2']));
    // P2 gone for 30 minutes.
    a.sync(new Map([['P1', 'device']]));
    await a.run(30 * MIN, () => a.lab(['P1']));
    expect(a.f.columns?.().map((c) => c.title)).toContain('IN SERVICE 24H');
    expect(a.f.cells?.(phone('P1'), undefined)).toEqual({ inService24h: '100.0%' });
    expect(a.f.cells?.(phone('P2'), undefined)).toEqual({ inService24h: '50.0% port' });
    const [hostLine] = a.f.doctor!.host!({});
    expect(hostLine).toMatchObject({ status: 'warn', finding: 'in service 75.0% of the last 24 hours, 2 phones; out of service: port 25.0%' });
    const metrics = a.f.metrics!();
    const hostSeries = metrics.find((m) => m.name === 'device_agent_availability_seconds_total')!;
    expect(hostSeries.samples.map((s) => s.labels)).toEqual(
      expect.arrayContaining([
        { state: 'in_service', layer: 'none' },
        { state: 'gone', layer: 'port' },
      ]),
    );
    expect(metrics.find((m) => m.name === 'device_agent_phones_by_state')!.samples).toEqual(
      expect.arrayContaining([
        { labels: { state: 'in_service' }, value: 1 },
        { labels: { state: 'gone' }, value: 1 },
      ]),
    );
    await a.f.stop?.();
  });

  it('follows 512 phones at most: a flood of serials (a phone that makes up its own) forgets the one gone longest', () => {
    dir = mkdtempSync(join(tmpdir(), 'avail-'));
    const time = new VirtualTime();
    const a = host(dir, time);
    for (let i = 0; i < MAX_PHONES + 100; i++) {
      a.lab([`F${i}`]);
      time.advance(1_000);
    }
    const phones = a.f.metrics!().find((m) => m.name === 'device_agent_phone_availability_seconds_total')!;
    expect(new Set(phones.samples.map((s) => s.labels!.udid)).size).toBeLessThanOrEqual(MAX_PHONES);
  });

  it('says one summary line a day, for the day that ended, and not again after a restart', async () => {
    dir = mkdtempSync(join(tmpdir(), 'avail-'));
    const time = new VirtualTime();
    const a = host(dir, time);
    await a.f.start?.();
    a.lab(['P1']);
    // From noon to 01:00 the next day.
    await a.run(13 * 60 * MIN, () => a.lab(['P1']));
    const days = () => a.lines().filter((l) => String(l.msg).startsWith('in service on '));
    expect(days().map((l) => l.msg)).toEqual(['in service on 2026-01-05: 100.0% of the time of 1 phone']);
    await a.f.stop?.();
    const b = host(dir, time);
    await b.f.start?.();
    time.advance(10 * MIN);
    expect(b.lines().filter((l) => String(l.msg).startsWith('in service on '))).toEqual([]);
    await b.f.stop?.();
  });

  describe('a phone back on a new connection', () => {
    /** Its seconds by slot and its state as kept at the stop. */
    const keptOf = (udid: string) => clockFrom(readFileSync(join(dir, AVAILABILITY_FILE), 'utf8'))!.phones.find((p) => p.udid === udid)!;
    /** A lab with the clock running, and P1 in service for 5 minutes. */
    const lab = async () => {
      dir = mkdtempSync(join(tmpdir(), 'avail-'));
      const time = new VirtualTime();
      const a = host(dir, time);
      await a.f.start?.();
      a.lab(['P1']);
      await a.run(5 * MIN, () => a.lab(['P1']));
      return { a, time };
    };
    /** A report the cloud took, saying these of the phones. */
    const told = (a: ReturnType<typeof host>, devices: DeviceInfo[], carried: CarriedKinds = new Map()) => {
      a.f.annotate?.(devices, carried);
      a.heard({ delivered: true, devices, failed: [] });
    };
    /** The phone at a network address answers its inventory, and a report carries it. */
    const answerAt = (a: ReturnType<typeof host>, address: string, udid: string) => {
      a.registry.readings.answered(`android/${address}`, { ...phone(udid), serialNumber: address }, a.clock.wall(), a.clock.monotonic());
      a.f.answered?.(a.registry.get(`android/${address}`)!);
      told(a, [phone(udid)]);
    };

    /** P1 in service, and P2 back from an unplug: listed ready and answering, the cloud holding it UNPLUGGED. */
    const p2Back = (a: ReturnType<typeof host>) => {
      a.sync(
        new Map([
          ['P1', 'device'],
          ['P2', 'device'],
        ]),
      );
      a.registry.readings.answered('android/P2', phone('P2'), a.clock.wall(), a.clock.monotonic());
      a.f.answered?.(a.registry.get('android/P2')!);
      told(a, [phone('P1'), { ...phone('P2'), status: 'UNPLUGGED' }]);
    };
    /** The adb server restarts 200 ms from now, for 300 ms, as its source says it (the end of its connection, its return). */
    const restart = (a: ReturnType<typeof host>, time: VirtualTime) => {
      time.advance(200);
      a.registry.timeline.service('android', false, a.clock.monotonic());
      time.advance(300);
      a.registry.timeline.service('android', true, a.clock.monotonic());
    };

    it('after a flap, in service while the cloud still holds it AVAILABLE and nothing failed since its last answer', async () => {
      const { a } = await lab();
      // adb drops it and finds it again: a new connection, its inventory there not asked yet (the report carries the last).
      a.sync(new Map([['P1', 'offline']]));
      a.sync(new Map([['P1', 'device']]));
      await a.run(5 * MIN);
      await a.f.stop?.();
      const p1 = keptOf('P1');
      expect(p1.state).toBe('in_service');
      expect(Object.keys(p1.tally.totals)).toEqual(['in_service']);
    });

    /** P1's inventory fails now: a cut of its connection (found as it happens), or a hang found at the deadline. */
    const fails = (a: ReturnType<typeof host>, cut: boolean) => {
      const text = cut ? 'the adb connection failed in the middle of the inventory' : 'the inventory did not finish within 3000 ms';
      a.registry.readings.failed('android/P1', text, a.clock.wall(), a.clock.monotonic(), undefined, false, cut);
      a.f.changed?.([]);
    };
    /** Half a second later adb has it offline, and a second after that ready on a new connection. */
    const flapsBack = (a: ReturnType<typeof host>, time: VirtualTime) => {
      time.advance(500);
      a.sync(new Map([['P1', 'offline']]));
      time.advance(1_000);
      a.sync(new Map([['P1', 'device']]));
    };
    const outSeconds = (totals: Record<string, number>) =>
      Object.entries(totals)
        .filter(([slot]) => slot !== 'in_service')
        .reduce((sum, [, seconds]) => sum + seconds, 0);

    it('a flap that cuts its inventory: out from the cut, not dated back, and in service again once back', async () => {
      const { a, time } = await lab();
      time.advance(20_000);
      // The connection closes under the inventory in flight (the link's cut, found as it happens), and adb finds it again.
      fails(a, true);
      flapsBack(a, time);
      await a.run(5 * MIN);
      await a.f.stop?.();
      const p1 = keptOf('P1');
      expect(p1.state).toBe('in_service');
      // The second and a half from the cut to its return, and nothing more.
      expect(outSeconds(p1.tally.totals)).toBeLessThanOrEqual(2);
    });

    it('... a hang found at the deadline instead: dated back, and out until an answer says more', async () => {
      const { a, time } = await lab();
      time.advance(20_000);
      fails(a, false);
      flapsBack(a, time);
      await a.run(MIN);
      await a.f.stop?.();
      const totals = keptOf('P1').tally.totals;
      expect(totals['in_service'] ?? 0).toBeLessThan(5 * 60 + 15);
      expect(outSeconds(totals)).toBeGreaterThan(60);
    });

    it('... a hang, then a flap cutting the inventory that asks again: still not vouched for on its next connection', async () => {
      const { a, time } = await lab();
      time.advance(20_000);
      fails(a, false);
      time.advance(10_000);
      fails(a, true);
      flapsBack(a, time);
      await a.run(MIN);
      await a.f.stop?.();
      expect(keptOf('P1').state).not.toBe('in_service');
    });

    it('a network phone, nameless on its new connection until its inventory answers, is the phone last seen on that address', async () => {
      const { a, time } = await lab();
      const address = '10.0.0.5:5555';
      a.sync(new Map([[address, 'device']]));
      answerAt(a, address, 'NET1');
      await a.run(5 * MIN, () => answerAt(a, address, 'NET1'));
      a.sync(new Map());
      time.advance(2_000);
      a.sync(new Map([[address, 'device']]));
      expect(a.registry.get(`android/${address}`)!.udid).toBeUndefined();
      await a.run(5 * MIN);
      await a.f.stop?.();
      const net = keptOf('NET1');
      expect(net.state).toBe('in_service');
      // The two seconds off adb's list, and nothing more.
      expect(net.tally.totals['gone:port']).toBeLessThanOrEqual(3);
    });

    it('two phones last seen at one address (a lease given to another phone): a nameless connection there is neither', async () => {
      const { a, time } = await lab();
      const address = '10.0.0.7:5555';
      for (const udid of ['NET1', 'NET2']) {
        a.sync(new Map([[address, 'device']]));
        answerAt(a, address, udid);
        await a.run(MIN, () => answerAt(a, address, udid));
        a.sync(new Map());
        time.advance(2_000);
      }
      a.sync(new Map([[address, 'device']]));
      await a.run(5 * MIN);
      await a.f.stop?.();
      for (const udid of ['NET1', 'NET2']) expect(keptOf(udid).state, udid).toBe('gone');
    });

    it('offline on its way back from an unplug is still the unplug; offline while only the cloud keeps it out is the phone', async () => {
      const { a } = await lab();
      a.sync(new Map());
      told(a, [{ ...phone('P1'), status: 'UNPLUGGED' }]);
      await a.run(MIN);
      // Plugged again: adb shows the new connection offline for a minute before it is ready.
      a.sync(new Map([['P1', 'offline']]));
      await a.run(MIN);
      // Ready and answering, the cloud not told yet: out for the unplug still.
      a.sync(new Map([['P1', 'device']]));
      a.registry.readings.answered('android/P1', phone('P1'), a.clock.wall(), a.clock.monotonic());
      a.f.answered?.(a.registry.get('android/P1')!);
      await a.run(MIN);
      // Meanwhile it drops to offline for a minute: its own drop.
      a.sync(new Map([['P1', 'offline']]));
      await a.run(MIN);
      a.lab(['P1']);
      await a.run(MIN, () => a.lab(['P1']));
      await a.f.stop?.();
      const totals = keptOf('P1').tally.totals;
      // Each a minute, within the second the clock looks at.
      for (const slot of ['gone:port', 'auto_recovery:port', 'in_transition:port', 'auto_recovery:phone'])
        expect(Math.abs((totals[slot] ?? 0) - 60), slot).toBeLessThanOrEqual(1);
    });

    it('back in service, then a report composed while it was unplugged reaches the cloud late: out for the unplug, not the phone', async () => {
      const { a } = await lab();
      // Unplugged; a report composed now says so, its answer slow to come.
      a.sync(new Map());
      await a.run(MIN);
      const late: DeviceInfo[] = [{ ...phone('P1'), status: 'UNPLUGGED' }];
      a.f.annotate?.(late, new Map());
      // Plugged again on a new connection: its last inventory answered and nothing failed since, the cloud holds it AVAILABLE.
      a.sync(new Map([['P1', 'device']]));
      await a.run(MIN);
      // The late answer: the cloud stored UNPLUGGED, out until the next report.
      a.heard({ delivered: true, devices: late, failed: [] });
      await a.run(MIN);
      a.lab(['P1']);
      await a.run(MIN, () => a.lab(['P1']));
      await a.f.stop?.();
      const totals = keptOf('P1').tally.totals;
      expect(Math.abs((totals['gone:port'] ?? 0) - 60)).toBeLessThanOrEqual(1);
      expect(Math.abs((totals['in_transition:port'] ?? 0) - 60)).toBeLessThanOrEqual(1);
      expect(totals['in_transition:phone']).toBeUndefined();
    });

    it('reports not reaching the cloud: out on the cloud from the first that failed until one is delivered, an unplugged phone still its port', async () => {
      const { a, time } = await lab();
      a.sync(new Map());
      told(a, [{ ...phone('P1'), status: 'UNPLUGGED' }]);
      await a.run(MIN);
      // A report fails while it is unplugged: gone all the same, on its port.
      a.heard({ delivered: false, why: 'connection refused' });
      time.advance(1_000);
      // Back and answering, while no report reaches the cloud: nobody books it through a cloud that does not hear the host.
      a.sync(new Map([['P1', 'device']]));
      a.registry.readings.answered('android/P1', phone('P1'), a.clock.wall(), a.clock.monotonic());
      a.f.answered?.(a.registry.get('android/P1')!);
      await a.run(MIN);
      a.heard({ delivered: false, why: 'connection refused' });
      await a.run(MIN);
      a.lab(['P1']);
      await a.run(MIN, () => a.lab(['P1']));
      await a.f.stop?.();
      const totals = keptOf('P1').tally.totals;
      expect(Math.abs((totals['gone:port'] ?? 0) - 61)).toBeLessThanOrEqual(1.5);
      expect(Math.abs((totals['in_transition:cloud'] ?? 0) - 120)).toBeLessThanOrEqual(1.5);
      expect(totals['in_transition:port']).toBeUndefined();
    });

    it('left out of a report the cloud took: the cloud holds it offline, not at the status it stored before', async () => {
      const { a } = await lab();
      a.lab(['P1', 'P2']);
      await a.run(MIN, () => a.lab(['P1', 'P2']));
      // The next report names P2 alone (the body is the node's whole list): P1 waits for the cloud's word again.
      a.registry.readings.answered('android/P1', phone('P1'), a.clock.wall(), a.clock.monotonic());
      a.f.answered?.(a.registry.get('android/P1')!);
      told(a, [phone('P2')]);
      await a.run(MIN);
      await a.f.stop?.();
      const totals = keptOf('P1').tally.totals;
      // Out for the cloud's word with nothing to carry it: the phone's (the slot a carry without a status falls back to).
      expect(Object.keys(totals).sort()).toEqual(['in_service', 'in_transition:phone']);
      expect(Math.abs(totals['in_transition:phone']! - 60)).toBeLessThanOrEqual(1);
    });

    it("notes each change of a phone's state or blame in its flight recorder, never one that changes neither", async () => {
      const { a } = await lab();
      // It drops offline (its own drop), comes back and its inventory fails: out for the phone all along, the second
      // stretch held until an answer dates it (a change of the clock's, not of its state or blame).
      a.sync(new Map([['P1', 'offline']]));
      await a.run(MIN);
      a.sync(new Map([['P1', 'device']]));
      a.registry.readings.failed('android/P1', 'timed out', a.clock.wall(), a.clock.monotonic());
      await a.run(MIN);
      a.lab(['P1']);
      await a.run(MIN, () => a.lab(['P1']));
      await a.f.stop?.();
      const states = a.notes.filter((n) => n.startsWith('state: '));
      expect(states).toEqual(['state: first seen: in_service', 'state: in_service → auto_recovery (phone)', 'state: auto_recovery (phone) → in_service']);
    });

    it('an adb restart quicker than a look: out for adb meanwhile, and what it waits for after, it waits for since', async () => {
      const { a, time } = await lab();
      // P2 is back from an unplug and answers; the cloud holds it UNPLUGGED.
      p2Back(a);
      await a.run(MIN);
      // The server restarts and lists both again within the second: no look saw it down.
      restart(a, time);
      a.sync(
        new Map([
          ['P1', 'device'],
          ['P2', 'device'],
        ]),
      );
      await a.run(MIN);
      await a.f.stop?.();
      const p1 = keptOf('P1').tally.totals;
      const p2 = keptOf('P2').tally.totals;
      // P1, in service, was out for the restart, from when it began.
      expect(p1['in_transition:adb']).toBeGreaterThan(0);
      expect(p1['in_transition:adb']).toBeLessThanOrEqual(1.5);
      // P2, first seen waiting for the cloud's word, waits on its own account (its minute), then on the restart's.
      expect(Math.abs((p2['in_transition:phone'] ?? 0) - 60)).toBeLessThanOrEqual(1.5);
      expect(Math.abs((p2['in_transition:adb'] ?? 0) - 60)).toBeLessThanOrEqual(1.5);
    });

    it('offline after an adb restart listed it ready again is its own drop; offline before that is still the restart', async () => {
      const { a, time } = await lab();
      // P2 is back from an unplug and answers; the cloud holds it UNPLUGGED (the next report will tell it).
      p2Back(a);
      // The server restarts: its new connection to P2 shows offline for half a minute, then ready.
      restart(a, time);
      a.sync(
        new Map([
          ['P1', 'device'],
          ['P2', 'offline'],
        ]),
      );
      await a.run(MIN / 2);
      a.sync(
        new Map([
          ['P1', 'device'],
          ['P2', 'device'],
        ]),
      );
      await a.run(MIN / 2);
      // Then it drops offline for a minute: the phone's.
      a.sync(
        new Map([
          ['P1', 'device'],
          ['P2', 'offline'],
        ]),
      );
      await a.run(MIN);
      await a.f.stop?.();
      const p2 = keptOf('P2').tally.totals;
      expect(Math.abs((p2['auto_recovery:adb'] ?? 0) - 30)).toBeLessThanOrEqual(1.5);
      expect(Math.abs((p2['auto_recovery:phone'] ?? 0) - 60)).toBeLessThanOrEqual(1.5);
    });

    it("carried in the last report for a failed adb server: its UNAVAILABLE is the carry's, not a reading of its own", async () => {
      const { a, time } = await lab();
      a.sync(new Map());
      told(a, [{ ...phone('P1'), status: 'UNAVAILABLE' }], new Map([['P1', 'source-failed']]));
      time.advance(2_000);
      a.sync(new Map([['P1', 'device']]));
      await a.run(2 * MIN);
      await a.f.stop?.();
      const totals = keptOf('P1').tally.totals;
      expect(Object.keys(totals).filter((slot) => slot.startsWith('needs_person'))).toEqual([]);
      expect(totals['in_transition:adb']).toBeGreaterThanOrEqual(2 * 60);
    });
  });
  describe('off its port only on a port its source placed it on (trust)', () => {
    const keptOf = (udid: string) => clockFrom(readFileSync(join(dir, AVAILABILITY_FILE), 'utf8'))!.phones.find((p) => p.udid === udid)!;
    /**
     * P1 in service for 5 minutes (at adb's usb path `usb`, when given) on the USB layer's word as the layer computes it
     * (presence.ts) from the kernel lines the test gives, no serial in sysfs; then it drops offline and 2 minutes pass.
     */
    const dropOffline = async (usb: string | undefined, lines: (line: (kind: 'serial' | 'disconnect', port: string, serial?: string) => void) => void) => {
      dir = mkdtempSync(join(tmpdir(), 'avail-'));
      const words = new PortWords();
      const evidence: UsbEvidence = {
        placeOf: (place) => place?.usb,
        seen: (serials, port) => seenOf(serials, port, new Map(), words, () => undefined),
        cycled: () => undefined,
      };
      const a = host(dir, new VirtualTime(), evidence);
      await a.f.start?.();
      a.lab(['P1']);
      if (usb !== undefined) a.registry.setUsb('android', new Map([['P1', { usb }]]));
      await a.run(5 * MIN, () => a.lab(['P1']));
      lines((kind, port, serial) => words.add({ kind, role: 'fact', id: kind, port, ...(serial !== undefined && { serial }) }, 0));
      a.sync(new Map([['P1', 'offline']]));
      await a.run(2 * MIN);
      await a.f.stop?.();
      return keptOf('P1');
    };

    it('a gadget that printed the phone’s serial on another port and left does not make the phone, offline with no usb path, gone', async () => {
      // A device on port 1-3 gives P1's serial, then leaves it; P1 (adb gives no usb path for it) drops offline meanwhile.
      const p1 = await dropOffline(undefined, (line) => {
        line('serial', '1-3', 'P1');
        line('disconnect', '1-3');
      });
      expect(p1.state).not.toBe('gone');
      expect(Object.keys(p1.tally.totals).filter((slot) => slot.startsWith('gone'))).toEqual([]);
    });

    it('the port adb’s usb path names, disconnected by the kernel: gone, blamed on the port', async () => {
      const p1 = await dropOffline('1-1.2', (line) => line('disconnect', '1-1.2'));
      expect(p1.state).toBe('gone');
      expect(p1.tally.totals['gone:port']).toBeGreaterThanOrEqual(119);
    });
  });
});
