// Readiness for automation as the report sees it: a phone that fails the lab's baseline says so in its message, each
// failed check with what to do; /metrics counts the phones failing each check. Drift is logged once per change, never
// per report. The readings are the inventory's own (or the facts its source published): this opens no session.
import { parseReadinessChecks } from './settings.js';
import type { DeviceInfo } from '../../cloud/types.js';
import { facetKey } from '../../devices/facet.js';
import { OFF_SOURCE } from '../../devices/off-source.js';
import { READINESS_FACTS } from '../../devices/readiness-facts.js';
import { READINESS_VALUES } from '../../devices/readiness-values.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { limited } from '../../log/limited.js';
import type { Feature, FeatureContext } from '../context.js';
import { buildLine } from './build.js';
import { readinessDoctor } from './doctor.js';
import { drift, flipLine, type DriftEvent, type Seen } from './drift.js';
import { readinessCounters, readinessGauges } from './metrics.js';
import { offAdbMessage, offAdbVerdict } from './off-adb.js';
import { failsAppium } from './support.js';
import { judge, valuesOf, verdictCell, verdictMessage, type Verdict } from './verdict.js';
import { READINESS, TUNNEL } from '../../devices/verdicts.js';
import { cloudIdOf } from '../../booking/gate.js';
import { composeMessage } from '../../cloud/device-message.js';

/** What was last seen of each phone, by its stable key past its connections: a change across a replug or an update is still a change. */
const SEEN = facetKey<Seen>('readiness-seen', 'device');

/** The feature: the platform reads the values and words its phones and builds (reader), the feature judges them. */
export function readinessFeature(ctx: FeatureContext): Feature {
  const { registry, logger } = ctx;
  const reader = ctx.platforms.readiness;
  const baseline = parseReadinessChecks(ctx.settings.readiness.checks);
  // An empty baseline turns readiness off: no column, no series, no verdict.
  if (baseline.size === 0) return { name: 'readiness' };
  const seen = registry.facet(SEEN);
  // Published for the fix-it action (src/devices/readiness-values.ts): what the inventory read, by check.
  const published = registry.facet(READINESS_VALUES);
  // What the USB layer publishes: phones on a port that adb no longer lists (src/devices/off-source.ts).
  const offSource = registry.facet(OFF_SOURCE);
  const offVerdictOf = (udid: string) => {
    const off = offSource.get(udid);
    return off && offAdbVerdict(off, baseline, reader.platformName);
  };
  const { timeline } = registry;
  /** The phones whose standing verdict is their being off adb, not a reading: its source listing them again ends it. */
  const offAdb = new Set<string>();
  /** Readiness's word on a phone, standing in the timeline until a reading (or its leaving adb, or coming back) changes it. */
  const say = (udid: string, verdict: Verdict, inMessage = true) => {
    if (inMessage) offAdb.delete(udid);
    else offAdb.add(udid);
    const words = inMessage ? verdictMessage(verdict, true) : undefined;
    const out = failsAppium(verdict);
    timeline.verdict(udid, READINESS, {
      ...(out && { appiumOff: true, out: { state: 'needs_person', layer: 'readiness' } }),
      words,
      detail: verdict,
    });
  };
  /** A phone of the report off adb, judged by why: its message is that cause and what to do. */
  const annotated = (info: DeviceInfo) => {
    const offVerdict = offVerdictOf(info.udid);
    if (!offVerdict) {
      // Facts its source published with no inventory answering, judged before the composer folds the verdicts: the
      // report's Appium flag says what its words say, in the same report.
      const [record] = registry.byUdid(info.udid);
      if (record) judgeSourced(record);
      return info;
    }
    say(info.udid, offVerdict, false);
    return { ...info, ...composeMessage([offAdbMessage(offSource.get(info.udid)!)]) };
  };
  const changes = new Map<string, number>();
  const notReady = new Map<string, number>();
  let builds = 0;
  const facts = registry.facet(READINESS_FACTS);
  const readingOf = (device: DeviceSnapshot) => {
    // Selected by what the platform read, never by its name: the shell inventory's readiness sections, else the facts its source published.
    const read = reader.reading(registry, device.key);
    if (read) return read;
    const sourced = facts.get(device.key);
    return sourced && { facts: new Map(Object.entries(sourced)) };
  };
  /** A source may publish its facts with no inventory answering (an iPhone lockdown will not open a session for): judged as a reading. */
  const judgeSourced = (device: DeviceSnapshot) => {
    const reading = readingOf(device);
    const udid = cloudIdOf(device.serial, device.udid);
    if (reading && udid !== undefined) say(udid, judge(reading, baseline, device.last?.brandName));
  };
  /** The verdict standing on a phone: its last reading's, past the readings that did not read it (the fast tier). */
  const verdictOf = (udid: string | undefined) => (udid === undefined ? undefined : timeline.verdictBy(udid, READINESS)?.detail);
  const log = (device: DeviceSnapshot, event: DriftEvent) => {
    // Named by its udid, as the cloud knows it; adb's serial (an address over TCP) beside it.
    const name = `device ${device.udid ?? device.serial}`;
    switch (event.kind) {
      case 'build':
        builds++;
        logger.info(
          { serial: device.serial, from: event.from.fingerprint, to: event.to.fingerprint },
          `${name}: ${buildLine(event.from, event.to, reader.buildName)}`,
        );
        return;
      case 'value': {
        const { flip } = event;
        add(changes, flip.check);
        logger.info({ serial: device.serial, check: flip.check, from: flip.from, to: flip.to }, `${name}: ${flipLine(flip)}`);
        return;
      }
      case 'not_ready': {
        const failed = event.verdict.failed.map((f) => f.check.id);
        for (const check of failed) add(notReady, check);
        // Through the per-cause limit: 50 phones starting not ready say 10 warnings and one summary, not 50.
        limited(logger).warn(
          'readiness-not-ready',
          { serial: device.serial, checks: failed },
          `${name}: ${verdictMessage(event.verdict) ?? 'not ready for automation'}`,
          name,
        );
      }
    }
  };
  return {
    name: 'readiness',
    doctor: readinessDoctor(baseline),
    // Judged again as the report reads its source's devices, before it folds the verdicts (a one-shot's reading too).
    notes: (device) => {
      judgeSourced(device);
      return [];
    },
    answered: (device) => {
      const reading = readingOf(device);
      const fingerprint = reader.fingerprint(registry, device.key);
      if (!reading && fingerprint === undefined) return;
      const maker = device.last?.brandName;
      const observed = { values: reading ? valuesOf(reading, baseline, maker) : {}, verdict: reading && judge(reading, baseline, maker), fingerprint };
      const udid = cloudIdOf(device.serial, device.udid);
      if (observed.verdict && udid !== undefined) say(udid, observed.verdict);
      if (reading) published.set(device.key, observed.values);
      const { seen: now, events } = drift(seen.get(device.key), observed, baseline);
      seen.set(device.key, now);
      for (const event of events) log(device, event);
    },
    // Listed again (its debugging back on, replugged): off adb no more, though its reading waits for the next report
    // (while the cloud fails, the reports' backoff); not ready or ready, only a reading says.
    changed: (changes) => {
      for (const c of changes) {
        const udid = c.to === undefined ? undefined : cloudIdOf(c.serial, registry.udidAt(c.key));
        if (udid !== undefined && offAdb.delete(udid)) timeline.verdict(udid, READINESS, undefined);
      }
    },
    // The phones off adb are the USB layer's fact, published before any annotate pass (its observe hook).
    annotate: (devices) => devices.map(annotated),
    columns: () => [{ key: 'readiness', title: 'READY' }],
    // Every device listed has a cell: one not read yet says so.
    cells: (info, device): Record<string, string> => {
      const off = device ? undefined : offVerdictOf(info.udid);
      if (off) return { readiness: verdictCell(off)! };
      // The verdict standing on the phone, listed or not; a listed phone not read yet says so, one no source lists says nothing ("-").
      const verdict = verdictOf(info.udid) ?? (device && verdictOf(cloudIdOf(device.serial, device.udid)));
      // An iPhone without a live tunnel here cannot run automation either: READY says so as its message does.
      const tunnel = timeline.verdictBy(info.udid, TUNNEL)?.appiumOff === true;
      if (!verdict) return tunnel ? { readiness: 'not ready: tunnel' } : device ? { readiness: NOT_READ_YET } : {};
      const judged = tunnel ? { ...verdict, ready: false, failed: [...verdict.failed, { check: { id: 'tunnel' } }] } : verdict;
      return { readiness: verdictCell(judged) ?? NO_CHECK_APPLIES };
    },
    metrics: () => readinessCounters([...baseline.keys()], { changes, notReady, builds }),
    // The phones the views show, each by the verdict standing on it: a gauge counts phones, not moments between readings.
    tallies: (rows) =>
      readinessGauges(
        [...baseline.keys()],
        rows.map((r) => verdictOf(r.udid)),
      ),
  };
}

/** A device whose readiness has not been read: not ready, not failing, unknown. */
const NOT_READ_YET = 'not read yet';
/** Read, but no check of the baseline is the phone's (its platform's or its maker's): a check not read is `unread: CHECK`. */
const NO_CHECK_APPLIES = 'no check applies';

function add(counts: Map<string, number>, check: string) {
  counts.set(check, (counts.get(check) ?? 0) + 1);
}
