// The in-service clock at run time: what the agent already knows of each
// phone (classify.ts) read at every change a source hears, every report and
// its answer, and every inventory's answer (that phone's alone), never on a
// timer; what only an inventory finds dated back (dating.ts); each
// phone's seconds credited (clock.ts) to it, its port, its hub and the host;
// kept in the state directory (store.ts), saved every few minutes and at the
// stop. It asks nothing of the phones.
import { cloudIdOf } from '../../booking/gate.js';
import { STATUS_UNAVAILABLE, type DeviceInfo } from '../../cloud/types.js';
import { INCIDENT_LOG } from '../../devices/incidents.js';
import { OFF_SOURCE } from '../../devices/off-source.js';
import { PHONE_STATE, type Layer } from '../../devices/phone-state.js';
import type { CarriedKinds, PresenceKind } from '../../devices/presence.js';
import type { Platform } from '../../devices/record.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { sourcePort, USB_EVIDENCE } from '../../devices/usb-evidence.js';
import { PERSON } from '../../devices/verdicts.js';
import type { Fact } from '../../devices/timeline.js';
import { every, type Timer } from '../../util/clock.js';
import type { FeatureContext } from '../context.js';
import { classify, type PhoneLook } from './classify.js';
import { backdateOf } from './dating.js';
import { InServiceClock } from './clock.js';
import { hubOfPort } from '../../util/usb-path.js';
import { clockFile, type StoredClock } from './store.js';
import { daySummary } from './views.js';

/** How often it looks whether a day ended, for the day's line. */
const SUMMARY_LOOK_MS = 60_000;
const SAVE_EVERY_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** A state as the flight recorder says it: "needs_person (readiness)". */
const stateText = ({ state, layer }: { state: string; layer?: string }) => `${state}${layer ? ` (${layer})` : ''}`;

/** What the clock remembers of a phone between looks (monotonic ms). */
interface Memo {
  /** Its last inventory that answered in full, and the one before: what an inventory finds is dated between them. */
  lastGood?: number;
  prevGood?: number;
  /** Its latest failed inventory, and latest that was no cut of its connection (a flap): after that one, a phone back on a new connection is not vouched for by an answer before it. */
  failedAt?: number;
  hungAt?: number;
  /** The last look that found it listed ready: offline after its source dropped and listed it ready again is its own. */
  readyAt?: number;
  /** The layer of its last time out of service. */
  outLayer?: Layer;
  platform?: Platform;
}

/** The in-service clock over the registry: it looks at every phone as what it reads changes, and keeps its count. */
export function availability(ctx: FeatureContext) {
  const { clock, registry, shared } = ctx;
  const inService = new InServiceClock(wallOf);
  /** Why the last report carried each phone it held (when no source listed it), by udid. */
  let lastReport = new Map<string, PresenceKind | undefined>();
  /** Monotonic ms of the last annotate pass: an answer before it has been judged. */
  let annotatedAt = -Infinity;
  /** What the clock remembers of each phone it follows between looks, by udid; forgotten with the phone. */
  const memos = new Map<string, Memo>();
  let timer: Timer | undefined;
  let unhear: (() => void) | undefined;
  let pending: Timer | undefined;
  /** The records whose reading, and the phones whose verdict, alone changed since the last look; 'all': anything may have. */
  let heard: Set<string> | 'all' | undefined;
  let saver: Timer | undefined;
  let started = false;
  /** Monotonic ms of the last look at every phone. */
  let observedAt = -Infinity;
  /** Monotonic ms of the look before this one: a source that dropped since came back between the two. */
  let lookedBefore = -Infinity;
  let summarized: number | undefined;
  const file = ctx.stateDir === undefined ? undefined : clockFile(ctx.stateDir, SAVE_EVERY_MS, ctx.logger);

  /**
   * The daemon runs: the clock looks whenever something it reads changes (an inventory's outcome, a fact of the
   * timeline: a service, the cloud, a verdict, inventories failing together; the kernel's word on a port; and through
   * the feature's hooks a source's listing, a report, an action), never on a timer; it says the day's line, and saves
   * every few minutes.
   */
  function start() {
    if (started) return;
    started = true;
    // A feature's verdict is on one phone too.
    const heardFact = (f: Fact) => hear(f.kind === 'verdict' ? f.udid : undefined);
    registry.readings.on('outcome', hear);
    registry.timeline.on('fact', heardFact);
    const unfollow = shared.get(USB_EVIDENCE)?.follow?.(hear);
    unhear = () => {
      registry.readings.off('outcome', hear);
      registry.timeline.off('fact', heardFact);
      unfollow?.();
    };
    observe();
    // The day's line reads the wall clock, nothing of the phones.
    summarize();
    timer = every(clock, SUMMARY_LOOK_MS, summarize, { unref: true });
    saver = every(
      clock,
      SAVE_EVERY_MS,
      () => {
        inService.creditAll(clock.monotonic());
        save();
      },
      { unref: true },
    );
  }

  function stop() {
    timer?.cancel();
    pending?.cancel();
    unhear?.();
    saver?.cancel();
    if (!started) return;
    observe();
    inService.settle(clock.monotonic());
    save();
    started = false;
  }

  /**
   * Something the clock reads changed: it looks once all that changes at this moment has (one adb listing, a report's
   * outcome and the verdicts it wakes), so that a state that lasts no time is not a state. An inventory's outcome names
   * its record, a verdict its phone: only that phone changed.
   */
  function hear(one?: unknown) {
    heard = typeof one === 'string' && heard !== 'all' ? (heard ?? new Set()).add(one) : 'all';
    pending ??= clock.setTimer(() => {
      pending = undefined;
      const only = heard;
      heard = undefined;
      observe(only === 'all' ? undefined : only);
    }, 0);
  }

  /** The phone's state now: for the features that ask (PHONE_STATE). */
  function stateNow(udid: string) {
    lookNow();
    return stateOf(udid);
  }

  /** What the sources said since the last look counts: a failure asked about right after its inventory ended. */
  function lookNow() {
    if (started && observedAt !== clock.monotonic()) observe();
  }

  /** The phone's state at the last look. Only the daemon's clock runs: a one-shot command says nothing of a phone's state now. */
  function stateOf(udid: string) {
    if (!started) return undefined;
    const subject = inService.phones.get(udid);
    if (!subject) return undefined;
    const { track } = subject;
    return { state: track.state, ...(track.layer && { layer: track.layer }), since: wallOf(track.since) };
  }

  /** Why the report carried each of its devices that no source lists (the presence ledger's reason), for the next looks. */
  function annotated(devices: readonly DeviceInfo[], carriedKinds: CarriedKinds) {
    lastReport = new Map(devices.map((d) => [d.udid, carriedKinds.get(d.udid)]));
    annotatedAt = clock.monotonic();
  }

  /** An inventory of the phone answered: in full, it is evidence it worked. */
  function answered(device: DeviceSnapshot) {
    const udid = cloudIdOf(device.serial, device.udid);
    if (udid === undefined || device.failures > 0) return;
    const at = clock.monotonic();
    const memo = memoOf(udid);
    const before = memo.lastGood;
    memo.lastGood = at;
    if (before === undefined) return;
    memo.prevGood = before;
    // What this answer read (its readiness, its battery) is judged in the report's annotate pass: until then it vouches only for the time up to the answer before.
    inService.confirm(udid, before);
  }

  /**
   * Every phone the agent knows of, looked at now; of the phones listed, with `only`, those of these records and udids. At
   * each of 200 phones' answers a look at every phone made a lab's first inventory quadratic (docs/performance/). What
   * else a phone's look reads changes with a fact, a listing, a report or the kernel's word, each heard as a change of
   * everything, or is its port on its source's word, compared here.
   */
  function observe(only?: Set<string>) {
    const at = clock.monotonic();
    lookedBefore = observedAt;
    observedAt = at;
    const records = new Map<string, DeviceSnapshot>();
    const bySerial = udidsBySerial();
    for (const r of registry.list()) {
      // A network phone back on a new connection has no udid until its inventory answers: the phone last seen on that address, when one was.
      const udid = cloudIdOf(r.serial, r.udid) ?? bySerial.get(r.serial);
      if (udid === undefined) continue;
      // Its phone changed with it, whichever of its records the look reads.
      if (only?.has(r.key)) only.add(udid);
      const had = records.get(udid);
      // A phone on USB and over TCP: the connection that answers decides.
      if (!had || (had.last === undefined && r.last !== undefined)) records.set(udid, r);
    }
    for (const [udid, record] of records) {
      memoOf(udid).platform = record.platform;
      const port = only && sourcePort(shared.get(USB_EVIDENCE), record.usb);
      if (only && !only.has(udid) && [undefined, inService.phones.get(udid)?.track.port].includes(port)) continue;
      look(udid, record.serial, record, at);
    }
    for (const udid of lastReport.keys()) if (!records.has(udid)) look(udid, inService.phones.get(udid)?.track.serial ?? udid, undefined, at);
    for (const [udid, subject] of [...inService.phones]) if (!records.has(udid) && !lastReport.has(udid)) look(udid, subject.track.serial, undefined, at);
    inService.creditAll(at);
    for (const udid of memos.keys()) if (!inService.phones.has(udid)) memos.delete(udid);
  }

  function memoOf(udid: string) {
    let memo = memos.get(udid);
    if (!memo) memos.set(udid, (memo = {}));
    return memo;
  }

  /** The phones the clock follows by the serial they were last seen on, when only one was. */
  function udidsBySerial() {
    const out = new Map<string, string>();
    const twice = new Set<string>();
    for (const [udid, { track }] of inService.phones) {
      if (out.has(track.serial)) twice.add(track.serial);
      out.set(track.serial, udid);
    }
    for (const serial of twice) out.delete(serial);
    return out;
  }

  function look(udid: string, serial: string, record: DeviceSnapshot | undefined, at: number) {
    const { timeline } = registry;
    const verdicts = timeline.verdictsOf(udid);
    const held = verdicts.find((v) => v.out?.state === 'quarantined')?.out;
    const memo = memoOf(udid);
    const platform = record?.platform ?? memo.platform;
    const usb = shared.get(USB_EVIDENCE);
    // The phone's port on its source's word (adb's usb path, usbmuxd's LocationID), else where the clock last placed it
    // on that word. Never where a serial was printed: a device that gives this phone's serial elsewhere and leaves would
    // make it "off its port".
    const port = sourcePort(usb, record?.usb) ?? inService.phones.get(udid)?.track.port;
    let usbBlame: string | undefined;
    let onPort: boolean | undefined;
    if (usb && port !== undefined) {
      const seen = usb.seen([...new Set([serial, udid])], port);
      if (seen) onPort = seen.enumerated;
      usbBlame = seen && !seen.enumerated ? seen.blame?.layer : usb.blame?.(port)?.layer;
    }
    const off = registry.facet(OFF_SOURCE).get(udid);
    const failure = record?.failure;
    if (failure !== undefined) {
      memo.failedAt = failure.at;
      // A connection that closed under its inventory (a flap) is the link's, seen as it happened: no failure of the phone
      // found late, so neither dated back nor held against its way back on the next connection.
      if (!failure.cut) memo.hungAt = failure.at;
    }
    const { lastGood: good, failedAt, hungAt } = memo;
    const answeredBefore = record?.last === undefined && good !== undefined && !(hungAt !== undefined && hungAt > good);
    const look: PhoneLook = {
      ...(record && { record: { state: record.state, failures: record.failures, answered: record.last !== undefined, answeredBefore } }),
      ...(platform && timeline.downSince(platform) !== undefined && { sourceUp: false }),
      carried: lastReport.get(udid),
      offSource: off && { mode: off.mode },
      onPort,
      usb: usbBlame,
      ...(held && { quarantined: { layer: held.layer } }),
      personNeeded: timeline.verdictBy(udid, PERSON) !== undefined,
      // The features' verdicts standing on it, and its source's own word on its last reading: never a field of the report.
      // The host's own setting turns Appium off on every phone: a readiness verdict then keeps none out.
      readinessOut: ctx.settings.support?.appiumDisabled !== true && verdicts.some((v) => v.out?.state === 'needs_person' && v.out.layer === 'readiness'),
      unavailable: record?.last?.status === STATUS_UNAVAILABLE || verdicts.some((v) => v.unavailable && v.out?.state === 'needs_person'),
      cloud: { status: timeline.storedStatus(udid), refused: timeline.refused(udid) !== undefined },
      outBefore: memo.outLayer,
      cloudBehind: timeline.cloudBehindSince !== undefined,
      starved: timeline.starvedSince !== undefined && failure !== undefined && failure.at >= timeline.starvedSince,
    };
    // Its source dropped since the last look and is back (an adb restart quicker than a look): the phone it held was out
    // for it meanwhile, and what it waits for now it waits for since.
    const droppedAt = platform !== undefined ? timeline.droppedAt(platform) : undefined;
    const dropped = look.sourceUp !== false ? droppedAt : undefined;
    const bounced = dropped !== undefined && dropped > lookedBefore && record !== undefined;
    // Ready since its source's last drop: what takes it out now is not the drop.
    const backFromDrop = droppedAt === undefined || (memo.readyAt !== undefined && memo.readyAt > droppedAt);
    if (record?.state === 'device' && look.sourceUp !== false) memo.readyAt = at;
    const before = inService.phones.get(udid)?.track;
    const was = before && stateText(before);
    if (bounced) {
      inService.observe(udid, serial, { state: 'in_transition', layer: 'adb' }, at, { backdate: dropped, port });
    }
    let verdict = classify(look);
    const track = inService.phones.get(udid)?.track;
    // Offline while usable, or while only the cloud's word kept it out: a drop of its own, not its way back from being out
    // (nor from its source's drop, until the source listed it ready again).
    if (
      verdict.layer === 'carry' &&
      record?.state === 'offline' &&
      (track?.state === 'in_service' || (track?.state === 'in_transition' && (track.layer !== 'adb' || backFromDrop) && track.layer !== 'host'))
    )
      verdict = { state: verdict.state, layer: 'phone' };
    // Out because reports do not reach the cloud: since the first that failed went out (a cloud that never answers is
    // known only at the attempt's end), and in service up to then only as far as its last evidence (clock.ts).
    const cloudSince = verdict.state === 'in_transition' && verdict.layer === 'cloud' ? timeline.cloudBehindSince : undefined;
    const backdate =
      cloudSince ??
      backdateOf({
        held: track?.held === true,
        good,
        prevGood: memo.prevGood,
        failedAt,
        failingSince: hungAt !== undefined && failure !== undefined && hungAt >= failure.first ? failure.first : undefined,
        read:
          verdict.state === 'needs_person' &&
          record?.state !== undefined &&
          record.failures === 0 &&
          (look.readinessOut === true || look.unavailable === true) &&
          (verdict.layer === 'readiness' || verdict.layer === 'phone'),
      });
    const changed = inService.observe(udid, serial, verdict, at, { backdate, port });
    // In service, and its last answer judged so: it vouches for the time up to it.
    if (verdict.state === 'in_service' && good !== undefined && good <= annotatedAt) inService.confirm(udid, good);
    // Failing, found so by an inventory: the time up to that failure is known.
    if (verdict.held && failure !== undefined) inService.failed(udid, failure.at);
    const now = inService.phones.get(udid)!.track;
    if (now.state !== 'in_service' && now.layer !== undefined) memo.outLayer = now.layer;
    if (!changed) return;
    // Held or no longer held (how its time is dated) is the clock's change, not the phone's: nothing to note.
    const nowText = stateText(now);
    if (was === nowText) return;
    shared.get(INCIDENT_LOG)?.note({ udid, serial }, 'state', was ? `${was} → ${nowText}` : `first seen: ${nowText}`);
  }

  function wallOf(mono: number) {
    return mono + (clock.wall() - clock.monotonic());
  }

  /** One line for the day that ended, once, whether the agent ran at midnight or came back later. */
  function summarize() {
    const yesterday = Math.floor(clock.wall() / DAY_MS) * DAY_MS - DAY_MS;
    const due = summarized !== undefined && summarized < yesterday;
    if (due || summarized === undefined) summarized = yesterday;
    if (!due) return;
    const line = daySummary(inService, yesterday, yesterday + DAY_MS);
    if (line) ctx.logger.info(line.fields, line.text);
  }

  /**
   * What an earlier run kept: each phone's time since it last counted (the
   * agent did not run, or had not saved) is blamed on the host, as in
   * transition; a phone gone then is still gone.
   */
  function restore(stored: StoredClock) {
    const monoNow = clock.monotonic();
    const wallNow = clock.wall();
    for (const { hub, tally } of stored.hubs) inService.hubs.set(hub, tally);
    for (const { port, hub, tally } of stored.ports) inService.ports.set(port, { hub, tally });
    Object.assign(inService.host.totals, stored.host.totals);
    inService.host.hours = stored.host.hours;
    for (const p of stored.phones) {
      const credited = monoNow - Math.max(0, wallNow - p.creditedAt);
      const gone = p.state === 'gone';
      inService.phones.set(p.udid, {
        track: {
          udid: p.udid,
          serial: p.serial,
          ...(p.port !== undefined && { port: p.port, hub: hubOfPort(p.port) }),
          state: gone ? 'gone' : 'in_transition',
          layer: gone ? p.layer : 'host',
          since: credited,
          credited,
          confirmed: credited,
        },
        tally: p.tally,
      });
      if (p.platform !== undefined) memoOf(p.udid).platform = p.platform;
    }
    if (stored.summarized !== undefined) summarized = stored.summarized;
  }

  function save() {
    if (file === undefined || !started) return;
    const at = clock.monotonic();
    const stored: StoredClock = {
      phones: [...inService.phones.values()].map(({ track, tally }) => ({
        udid: track.udid,
        serial: track.serial,
        // Kept only where known: JSON leaves out what is undefined.
        platform: memos.get(track.udid)?.platform,
        port: track.port,
        state: track.state,
        layer: track.layer,
        creditedAt: wallOf(track.credited),
        tally,
      })),
      ports: [...inService.ports].map(([port, { hub, tally }]) => ({ port, hub, tally })),
      hubs: [...inService.hubs].map(([hub, tally]) => ({ hub, tally })),
      host: inService.host,
      savedAt: wallOf(at),
      summarized,
    };
    file.save(stored);
  }

  const stored = file?.load();
  if (stored) restore(stored);
  shared.of(PHONE_STATE, () => ({ now: stateNow }));
  return { clock: inService, start, stop, hear, lookNow, stateOf, annotated, answered, wallOf };
}
