// A lab's life on the report bed (test/agent/bed.ts), on virtual time, with
// the truth of each phone known to the test: which fault it was under, when,
// and blamed on which layer, and what the cloud stored of it after each PUT.
// The daemon's features run as the daemon runs them (actions on one runner
// with a booking gate, the hooks wired as buildParts and the Agent wire them);
// the USB layer's word is the test's (FakeUsb), as the kernel would give it.
//
// The truth of a second of a phone: out of service while a fault is on it
// (the adb server down > its hub down > its own fault, in that order), while
// the cloud does not hear the host (from the start of its outage until a
// report reaches it again: nobody books a phone through a cloud that does
// not answer), or while the cloud's last stored word on it is not AVAILABLE
// or a refusal; an out second with no fault on is blamed on what took it out
// last, and on the phone before any fault (its first report).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BookingAnswer, BookingStatusSource } from '../../../src/cloud/booking-status.js';
import type { Layer } from '../../../src/devices/phone-state.js';
import type { UsbPlace } from '../../../src/devices/record.js';
import type { PortCycleSeen, UsbBlame, UsbEvidence, UsbSeen } from '../../../src/devices/usb-evidence.js';
import { USB_EVIDENCE } from '../../../src/devices/usb-evidence.js';
import { clockFrom, AVAILABILITY_FILE } from '../../../src/features/availability/store.js';
import { HOUR_MS, partsOf } from '../../../src/features/availability/tally.js';
import type { AndroidControl } from '../../../src/platforms/android/control.js';
import type { Logger } from '../../../src/log/logger.js';
import { seededRandom } from '../../support/virtual-time.js';
import { SharedParts } from '../../../src/util/shared-parts.js';
import { reportBed } from '../../agent/bed.js';

/** Each phone's own port: hub 1-1 for the first half, 1-2 for the rest. */
export function portOf(serial: string, phones: readonly string[]): string {
  const i = phones.indexOf(serial);
  const half = Math.ceil(phones.length / 2);
  return i < half ? `1-1.${i + 1}` : `1-2.${i - half + 1}`;
}

export const hubOf = (port: string): string => port.slice(0, port.lastIndexOf('.'));

/** The USB layer's word, as the test decides it: every phone on its port; a hub or a port the test fails is blamed. */
export class FakeUsb implements UsbEvidence {
  readonly hubsDown = new Set<string>();
  readonly portsDown = new Set<string>();
  readonly unplugged = new Set<string>();
  /** Phones adb lists with no usb path (as for a phone it reaches over the network). */
  readonly pathless = new Set<string>();
  readonly lines: Array<(line: { port?: string; hub?: string; text: string; at: number }) => void> = [];
  constructor(private readonly phones: readonly string[]) {}

  /** adb's usb path, as the bed lists it: the only word that places a phone. */
  placeOf(usb: UsbPlace | undefined): string | undefined {
    return usb?.usb;
  }

  /** As the layer reads the kernel: on the port it is asked about, the phone is there or that port's last word was a disconnect. */
  seen(serials: readonly string[], port?: string): UsbSeen | undefined {
    const serial = serials.find((s) => this.phones.includes(s) && portOf(s, this.phones) === port);
    if (serial === undefined || port === undefined) return undefined;
    if (!this.unplugged.has(serial)) return { enumerated: true, port };
    const blame = this.blame(port);
    return { enumerated: false, port, hub: hubOf(port), last: 'disconnected', at: 0, ...(blame && { blame }) };
  }

  cycled(): PortCycleSeen | undefined {
    return undefined;
  }

  blame(port: string): UsbBlame | undefined {
    if (this.hubsDown.has(hubOf(port))) return { layer: 'hub', subject: hubOf(port), evidence: `hub ${hubOf(port)} keeps resetting` };
    if (this.portsDown.has(port)) return { layer: 'port', subject: port, evidence: `port ${port} fails to enumerate` };
    return undefined;
  }

  follow(listener: (line: { port?: string; hub?: string; text: string; at: number }) => void): () => void {
    this.lines.push(listener);
    return () => {
      if (this.lines.includes(listener)) this.lines.splice(this.lines.indexOf(listener), 1);
    };
  }
}

/** A door to the phones that carries every recovery action out and changes nothing: the test decides what the phones do. */
export const quietPhones = {
  platform: 'android',
  reconnectOffline: async () => '',
  reconnect: async () => '',
  connect: async () => '',
} as unknown as AndroidControl;

/** What the test does to a phone, and the layer it is blamed on. */
export type FaultKind = 'unplug' | 'port' | 'wedge' | 'offline' | 'unauthorized' | 'readiness';
export const FAULT_LAYER: Record<FaultKind | 'hub' | 'adb' | 'cloud', Layer> = {
  unplug: 'port',
  port: 'port',
  wedge: 'phone',
  offline: 'phone',
  unauthorized: 'readiness',
  readiness: 'readiness',
  hub: 'hub',
  adb: 'adb',
  cloud: 'cloud',
};

interface Span {
  from: number;
  to: number;
  layer: Layer;
}

export interface LifeOptions {
  phones: number;
  seed: number;
  /** Settings over the bed's. */
  set?: Record<string, unknown>;
  /** The phones the cloud says are booked. */
  booked?: Set<string>;
  /** The state directory (default a new one): another start on the same one is a restart. */
  stateDir?: string;
  logger?: Logger;
}

export function lifeBed(o: LifeOptions) {
  const phones = Array.from({ length: o.phones }, (_, i) => `LIFE${String(i).padStart(2, '0')}`);
  const stateDir = o.stateDir ?? mkdtempSync(join(tmpdir(), 'life-'));
  const usb = new FakeUsb(phones);
  const shared = new SharedParts();
  shared.of(USB_EVIDENCE, () => usb);
  const booked = o.booked ?? new Set<string>();
  const questions: string[] = [];
  /** When each question was asked (virtual ms). */
  const asked: number[] = [];
  const booking: BookingStatusSource = {
    ask: async (id): Promise<BookingAnswer> => {
      questions.push(id);
      asked.push(bed.time.now);
      return { booked: booked.has(id) };
    },
  };
  const bed = reportBed({
    schedule: '* * * * *',
    stateDir,
    shared,
    phones: quietPhones,
    daemon: { booking },
    ...(o.logger && { logger: o.logger }),
    set: { 'usb.kernelLog': '', 'readiness.checks': ['developerMode'], ...o.set },
  });
  const { source, cloud, time } = bed;
  const random = seededRandom(o.seed);
  /** Each phone's state for adb, and its faults and their spans. */
  const state = new Map(phones.map((p) => [p, 'device']));
  const faults = new Map<string, Span[]>(phones.map((p) => [p, []]));
  const on = new Map<string, { kind: FaultKind; span: Span }>();
  const hubSpans = new Map<string, Span[]>();
  const adbSpans: Span[] = [];
  /** When the cloud stopped answering and started again. */
  const cloudSpans: Span[] = [];
  /** When the test set and cleared each phone's refusal by the cloud. */
  const refusals = new Map<string, Array<{ at: number; refused: boolean }>>(phones.map((p) => [p, []]));

  const relist = (): void => {
    const listed = new Map<string, string>();
    for (const p of phones) {
      if (usb.unplugged.has(p)) continue;
      const hubDown = usb.hubsDown.has(hubOf(portOf(p, phones)));
      listed.set(p, hubDown ? 'offline' : state.get(p)!);
    }
    source.listStates(listed);
    // adb's usb path for each phone it lists, as `adb devices -l` gives it.
    bed.registry.setUsb('android', new Map([...listed.keys()].map((p) => [p, usb.pathless.has(p) ? {} : { usb: portOf(p, phones) }])));
  };

  const start = (kind: FaultKind, p: string): void => {
    const span: Span = { from: time.now, to: Infinity, layer: FAULT_LAYER[kind] };
    faults.get(p)!.push(span);
    on.set(p, { kind, span });
    switch (kind) {
      case 'unplug':
        usb.unplugged.add(p);
        break;
      case 'port':
        usb.portsDown.add(portOf(p, phones));
        state.set(p, 'offline');
        break;
      case 'wedge':
        source.silent.add(p);
        break;
      case 'offline':
        state.set(p, 'offline');
        break;
      case 'unauthorized':
        state.set(p, 'unauthorized');
        break;
      case 'readiness':
        // Its Developer Mode turned off: readiness reads it at the next inventory and turns Appium off.
        source.facts.set(p, { developerMode: 'false' });
        break;
    }
    relist();
  };

  const end = (p: string): void => {
    const f = on.get(p);
    if (!f) return;
    on.delete(p);
    f.span.to = time.now;
    usb.unplugged.delete(p);
    usb.portsDown.delete(portOf(p, phones));
    source.silent.delete(p);
    source.answers.delete(p);
    source.facts.set(p, { developerMode: 'true' });
    state.set(p, 'device');
    relist();
  };

  const hub = (h: string, down: boolean): void => {
    const spans = hubSpans.get(h) ?? [];
    hubSpans.set(h, spans);
    if (down) {
      usb.hubsDown.add(h);
      spans.push({ from: time.now, to: Infinity, layer: 'hub' });
    } else {
      usb.hubsDown.delete(h);
      spans.at(-1)!.to = time.now;
    }
    relist();
  };

  const adb = (down: boolean): void => {
    source.alive = !down;
    source.fail = down ? new Error('the adb server does not answer') : undefined;
    if (down) adbSpans.push({ from: time.now, to: Infinity, layer: 'adb' });
    else adbSpans.at(-1)!.to = time.now;
  };

  const refuse = (p: string, refused: boolean): void => {
    if (refused) cloud.refuse.set(p, 'missing required capability: platformVersion');
    else cloud.refuse.delete(p);
    refusals.get(p)!.push({ at: time.now, refused });
  };

  /** Plugs the phones, starts the daemon and runs until every phone is in its first report. */
  const boot = async (): Promise<number> => {
    relist();
    await bed.startDaemon();
    bed.loop.start();
    await bed.advance(5_000, 250);
    return time.now;
  };

  /**
   * Random faults for `ms` of virtual time: each phone healthy for 5 to 60
   * minutes, then under one of its own faults for 1 to 20; now and then a
   * hub down for 2 to 8 minutes, the adb server down for 1 to 4, a
   * refusal by the cloud for 3 to 15, the cloud down for 2 to 6.
   */
  const run = async (
    ms: number,
    kinds: readonly FaultKind[] = ['unplug', 'port', 'wedge', 'offline', 'unauthorized', 'readiness'],
    wide = true,
    /** Phones that flap: healthy 1 to 3 minutes, then a wedge or their readiness failing for half a minute to 2. */
    flapping: readonly string[] = [],
  ): Promise<void> => {
    const until = time.now + ms;
    const minutes = (a: number, b: number) => Math.round((a + random() * (b - a)) * 60_000);
    const next = new Map(phones.map((p) => [p, time.now + minutes(5, 60)]));
    const flaps = new Set(flapping);
    let hubAt = time.now + minutes(30, 120);
    let adbAt = time.now + minutes(40, 150);
    let refuseAt = time.now + minutes(20, 90);
    let cloudAt = time.now + minutes(30, 120);
    const wideEnds: Array<{ at: number; undo: () => void }> = [];
    while (time.now < until) {
      for (const p of phones) {
        if (time.now < next.get(p)!) continue;
        const flap = flaps.has(p);
        if (on.has(p)) {
          end(p);
          next.set(p, time.now + (flap ? minutes(1, 3) : minutes(5, 60)));
        } else {
          start(flap ? (random() < 0.5 ? 'wedge' : 'readiness') : kinds[Math.floor(random() * kinds.length)]!, p);
          next.set(p, time.now + (flap ? minutes(0.5, 2) : minutes(1, 20)));
        }
      }
      if (wide) {
        if (time.now >= hubAt) {
          const h = random() < 0.5 ? '1-1' : '1-2';
          if (!usb.hubsDown.has(h)) {
            hub(h, true);
            wideEnds.push({ at: time.now + minutes(2, 8), undo: () => hub(h, false) });
          }
          hubAt = time.now + minutes(60, 180);
        }
        if (time.now >= adbAt && source.alive) {
          adb(true);
          wideEnds.push({ at: time.now + minutes(1, 4), undo: () => adb(false) });
          adbAt = time.now + minutes(90, 240);
        }
        if (time.now >= refuseAt) {
          const p = phones[Math.floor(random() * phones.length)]!;
          if (!cloud.refuse.has(p)) {
            refuse(p, true);
            wideEnds.push({ at: time.now + minutes(3, 15), undo: () => refuse(p, false) });
          }
          refuseAt = time.now + minutes(30, 120);
        }
        if (time.now >= cloudAt && !cloud.failing) {
          cloud.failing = true;
          const span: Span = { from: time.now, to: Infinity, layer: 'cloud' };
          cloudSpans.push(span);
          wideEnds.push({
            at: time.now + minutes(2, 6),
            undo: () => {
              cloud.failing = false;
              span.to = time.now;
            },
          });
          cloudAt = time.now + minutes(60, 180);
        }
      }
      for (const w of wideEnds.splice(0)) {
        if (time.now >= w.at) w.undo();
        else wideEnds.push(w);
      }
      await bed.advance(1_000, 1_000);
    }
    for (const w of wideEnds) w.undo();
    for (const p of phones) end(p);
  };

  /** The truth of each phone's seconds from `from` to `to`, by hour and layer ('in_service' for a second in service). */
  const truth = (from: number, to: number, trace?: { phone: string; slots: string[] }): Map<string, Map<number, Map<string, number>>> => {
    const delivered = cloud.bodies.filter((b) => b.delivered);
    // The cloud does not hear the host from its outage's start until a report reaches it after its end.
    const deaf = cloudSpans.map((s) => ({ ...s, to: delivered.find((b) => b.at >= s.to)?.at ?? Infinity }));
    const out = new Map<string, Map<number, Map<string, number>>>();
    const active = (spans: readonly Span[], t: number) => spans.find((s) => s.from <= t && t < s.to);
    for (const p of phones) {
      const hours = new Map<number, Map<string, number>>();
      out.set(p, hours);
      const hubSpansOf = hubSpans.get(hubOf(portOf(p, phones))) ?? [];
      const refusedAt = (t: number): boolean => {
        let r = false;
        for (const c of refusals.get(p)!) if (c.at <= t) r = c.refused;
        return r;
      };
      let bodyIndex = -1;
      let lastLayer: Layer = 'phone';
      let lastEnd = -Infinity;
      for (let t = from; t < to; t += 1_000) {
        while (bodyIndex + 1 < delivered.length && delivered[bodyIndex + 1]!.at <= t) bodyIndex++;
        const body = bodyIndex >= 0 ? delivered[bodyIndex] : undefined;
        const phys = active(adbSpans, t) ?? active(hubSpansOf, t) ?? active(faults.get(p)!, t) ?? active(deaf, t);
        let slot: string;
        const stored = body?.body.devices.find((d) => d.udid === p);
        const refused = body !== undefined && refusedAt(body.at) && stored !== undefined;
        for (const s of [...adbSpans, ...hubSpansOf, ...faults.get(p)!, ...deaf]) {
          if (s.to > t || s.to <= lastEnd) continue;
          lastEnd = s.to;
          lastLayer = s.layer;
        }
        if (refused) {
          lastLayer = 'cloud';
          lastEnd = body.at;
        }
        if (phys) slot = phys.layer;
        else if (refused) slot = 'cloud';
        else if (stored?.status === 'AVAILABLE' && stored.state === 'device' && stored.support?.appiumDisabled !== true) slot = 'in_service';
        // Out with no fault on: what took it out.
        else slot = lastLayer;
        if (trace?.phone === p) trace.slots.push(slot);
        const hour = Math.floor((time.epochMs + t) / HOUR_MS) * HOUR_MS;
        let by = hours.get(hour);
        if (!by) hours.set(hour, (by = new Map()));
        by.set(slot, (by.get(slot) ?? 0) + 1);
      }
    }
    return out;
  };

  /** What the agent counted of each phone, by hour and layer ('in_service' in service), as it kept it in the state directory, its time in service since its last evidence added as `list` shows it; `to`: the wall ms of the end. */
  const counted = async (to: number): Promise<Map<string, Map<number, Map<string, number>>>> => {
    await bed.stopDaemon();
    const stored = clockFrom(readFileSync(join(stateDir, AVAILABILITY_FILE), 'utf8'))!;
    const out = new Map<string, Map<number, Map<string, number>>>();
    for (const ph of stored.phones) {
      const hours = new Map<number, Map<string, number>>();
      out.set(ph.udid, hours);
      for (const h of ph.tally.hours) {
        const by = new Map<string, number>();
        hours.set(h.start, by);
        for (const [slot, s] of Object.entries(h.by)) {
          const { state, layer } = partsOf(slot);
          const key = state === 'in_service' ? 'in_service' : layer!;
          by.set(key, (by.get(key) ?? 0) + s);
        }
      }
      if (ph.state === 'in_service')
        for (let t = ph.creditedAt; t < to;) {
          const hour = Math.floor(t / HOUR_MS) * HOUR_MS;
          const until = Math.min(to, hour + HOUR_MS);
          const by = hours.get(hour) ?? new Map<string, number>();
          hours.set(hour, by);
          by.set('in_service', (by.get('in_service') ?? 0) + (until - t) / 1000);
          t = until;
        }
    }
    return out;
  };

  const cleanup = (): void => rmSync(stateDir, { recursive: true, force: true });

  return { bed, shared, phones, usb, stateDir, questions, asked, booked, boot, run, start, end, hub, adb, refuse, truth, counted, cleanup, relist, state };
}

/** In service over all hours of a phone (or of the phones given). */
export function share(hours: Iterable<Map<number, Map<string, number>>>): { inService: number; all: number } {
  let inService = 0;
  let all = 0;
  for (const h of hours)
    for (const by of h.values())
      for (const [k, s] of by) {
        all += s;
        if (k === 'in_service') inService += s;
      }
  return { inService, all };
}

/** The share of the true out-of-service time the agent blamed on the true layer, hour by hour: sum of min(agent, truth) over the truth's. */
export function blameMatch(agent: Map<number, Map<string, number>>, truth: Map<number, Map<string, number>>): { matched: number; out: number } {
  let matched = 0;
  let out = 0;
  for (const [hour, by] of truth)
    for (const [layer, s] of by) {
      if (layer === 'in_service') continue;
      out += s;
      matched += Math.min(s, agent.get(hour)?.get(layer) ?? 0);
    }
  return { matched, out };
}
