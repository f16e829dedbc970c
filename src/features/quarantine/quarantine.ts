// Quarantine at run time: each failure of a phone heard once (a run of failed
// inventories, readiness turning to failing, recovery calling for a person,
// the cloud refusing it), blamed on the layer the in-service clock blames
// then (PHONE_STATE), and noted in the phone's flight recorder; the action
// that takes a phone out through the runner (its booking questions, holds,
// refusals and counted starts, as every action's) and puts it back after its
// time and a check, or at once when an operator asks (a request file the
// `quarantine release` command leaves, taken at every look); the
// quarantines kept in the state directory.
import type { DeviceAction, Intent } from '../../actions/runner.js';
import { cloudIdOf, type BookingVerdict } from '../../booking/gate.js';
import { withinMessage } from '../../cloud/device-message.js';
import { claimOf, conflictsOf } from '../../devices/claims.js';
import type { ReportHeard } from '../../devices/feature.js';
import { INCIDENT_LOG, type EventKind } from '../../devices/incidents.js';
import { OFF_SOURCE } from '../../devices/off-source.js';
import { PHONE_OWN_LAYERS, PHONE_STATE, type Layer } from '../../devices/phone-state.js';
import { QUARANTINE, quarantined, type QuarantineEntry } from '../../devices/quarantine.js';
import { PERSON, QUARANTINED, READINESS } from '../../devices/verdicts.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { FeatureContext } from '../context.js';
import { decideQuarantine, type Failure, type FailureKind, type QuarantineDecision, type QuarantineSettings } from './policy.js';
import { QuarantineFiles } from './store.js';
import { counterKey } from '../../stats/counter.js';
import { setBounded } from '../../util/bounded-set.js';

export const QUARANTINES = counterKey(
  'device_agent_quarantines_total',
  'Phones taken out of service for failing again and again, by the layer their failures were blamed on (phone, port, readiness, cloud).',
  ['layer'],
  [...PHONE_OWN_LAYERS].map((layer) => [layer]),
);

export const QUARANTINE_RELEASES = counterKey(
  'device_agent_quarantine_releases_total',
  'Quarantines ended, by how: expiry (its time over and a check passed) or operator (device-agent quarantine release).',
  ['by'],
  [['expiry'], ['operator']],
);

export const QUARANTINES_HELD = counterKey(
  'device_agent_quarantines_held_total',
  'Quarantines due but not started because the cloud said the phone is booked, or could not say (reason booked, unknown); once per cloud answer.',
  ['reason'],
  [['booked'], ['unknown']],
);

/** Failures kept per phone at most (the window's), and phones with failures at most. */
const FAILURES_KEPT = 32;
const PHONES_KEPT = 1024;

type QIntent = Intent &
  (
    | { kind: 'quarantine'; udid: string; serial: string; decision: Extract<QuarantineDecision, { kind: 'quarantine' }> }
    | { kind: 'release'; udid: string; by: 'expiry' | 'operator'; who?: string }
  );

/** "12:05Z", or the date too when it is not today's. */
export function shortTime(at: number, now: number) {
  const iso = new Date(at).toISOString();
  return iso.slice(0, 10) === new Date(now).toISOString().slice(0, 10) ? `${iso.slice(11, 16)}Z` : `${iso.slice(0, 16)}Z`;
}

/** The words of a quarantined phone's message: why, since when, until when, on what evidence, and how to end it now. */
function quarantineWords(e: QuarantineEntry & { since: number; until: number }, now: number) {
  const minutes = Math.round((e.until - e.since) / 60_000);
  const nth = e.starts.length;
  return (
    `quarantined since ${shortTime(e.since, now)} until ${shortTime(e.until, now)} (${minutes} min${nth > 1 ? `, its ${ordinal(nth)} in a row` : ''}): ` +
    `${e.reason ?? 'it kept failing'}${e.layer ? `, blamed on its ${e.layer}` : ''}` +
    `; back once a check passes after then, or now: device-agent quarantine release ${e.serial}` +
    // Last: what the message's limit cuts, at a word, is the evidence, never how to end it.
    (e.evidence?.length ? `; evidence: ${e.evidence.join('; ')}` : '')
  );
}

const toggle = (set: Set<string>, key: string, on: boolean) => (on ? set.add(key) : set.delete(key));

function ordinal(n: number) {
  return `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;
}

/** Quarantine's state and action over the registry: its entries, what it hears of the phones, and its look at them. */
export function quarantine(ctx: FeatureContext) {
  const { registry, logger, clock, stats, shared } = ctx;
  const q = ctx.settings.quarantine;
  const settings: QuarantineSettings = {
    failures: q.failures,
    windowMs: q.windowMinutes * 60_000,
    holdMs: q.holdMinutes * 60_000,
    maxHoldMs: Math.max(q.holdMinutes, q.maxHoldMinutes) * 60_000,
    forgetMs: q.forgetHours * 3_600_000,
  };
  const files = ctx.stateDir === undefined ? undefined : new QuarantineFiles(ctx.stateDir, logger);
  const entries = registry.facet(QUARANTINE);
  let started = false;
  const failures = new Map<string, Failure[]>();
  /** Each record's run of failed inventories already counted (its first failure's monotonic ms). */
  const seenRun = new Map<string, number>();
  /** Phones whose call for a person is counted; phones whose readiness failing, or whose refusal by the cloud, is. */
  const person = new Set<string>();
  /** The failures heard since the last look, each counted at the look, blamed on the layer the in-service clock blames then. */
  const heard: Array<{ udid: string; serial?: string; kind: FailureKind; text: string }> = [];
  const readinessOut = new Set<string>();
  let refused = new Set<string>();
  /** Phones due whose booking question is not answered yet, and since when (wall ms): their evidence is counted as of then. */
  const due = new Map<string, number>();

  /** The phone's quarantine as the timeline holds it for the report and the views: out of service, Appium off, why and until when. */
  const publish = (udid: string) => {
    const e = entries.get(udid);
    registry.timeline.verdict(
      udid,
      QUARANTINED,
      quarantined(e)
        ? {
            out: { state: 'quarantined', layer: e.layer ?? 'phone' },
            unavailable: true,
            appiumOff: true,
            words: quarantineWords(e, clock.wall()),
            detail: { since: e.since, until: e.until },
          }
        : undefined,
    );
  };

  /** One failure of a phone, noted in its flight recorder whether it counts or not. */
  const failed = (udid: string, serial: string, kind: FailureKind, text: string, layer: Layer) => {
    const at = clock.wall();
    let list = failures.get(udid);
    if (!list) setBounded(failures, udid, (list = []), PHONES_KEPT);
    list.push({ at, kind, text: withinMessage(text), layer });
    if (list.length > FAILURES_KEPT) list.splice(0, list.length - FAILURES_KEPT);
    const ring: EventKind = kind === 'person' ? 'action' : kind;
    shared.get(INCIDENT_LOG)?.note({ udid, serial }, ring, `failure (${kind}, blamed on its ${layer}): ${text}`);
  };

  /** The layer the in-service clock blames the phone's trouble on now. */
  const layerNow = (udid: string) => shared.get(PHONE_STATE)?.now(udid)?.layer ?? 'phone';

  const save = () => {
    if (started) files?.save(entries.entries());
  };

  /** The phones' entries of no use any more (no quarantine now, none within the forget horizon) go. */
  const prune = (now: number) => {
    let dropped = false;
    for (const [udid, e] of entries.entries()) {
      if (quarantined(e) || e.starts.some((t) => now - t < settings.forgetMs)) continue;
      entries.delete(udid);
      dropped = true;
    }
    for (const [udid, list] of failures) {
      // A phone waiting for the cloud's word keeps the evidence it became due on.
      const asOf = due.get(udid) ?? now;
      const kept = list.filter((f) => asOf - f.at < settings.windowMs || f.at > asOf);
      if (kept.length) failures.set(udid, kept);
      else failures.delete(udid);
    }
    if (dropped) save();
  };

  for (const [udid, entry] of files?.load() ?? []) {
    entries.set(udid, entry);
    publish(udid);
  }
  // An inventory's outcome: a run of failed inventories of a record is one failure, heard once, when it starts.
  registry.readings.on('outcome', (key) => {
    const r = registry.get(key);
    if (!r || r.failures === 0 || !r.failure) {
      seenRun.delete(key);
      return;
    }
    const udid = cloudIdOf(r.serial, r.udid);
    if (udid === undefined || seenRun.get(key) === r.failure.first) return;
    setBounded(seenRun, key, r.failure.first, PHONES_KEPT);
    heard.push({ udid, serial: r.serial, kind: 'inventory', text: `inventory failed: ${r.failure.text}` });
  });
  registry.timeline.on('fact', (fact) => {
    // Inventories failing together are the host's: those already counted since are no phone's evidence.
    if (fact.kind === 'starved' && fact.since !== undefined) {
      const since = clock.wall() - (clock.monotonic() - fact.since);
      for (const list of failures.values()) for (const f of list) if (f.kind === 'inventory' && f.at >= since) f.layer = 'host';
    }
    if (fact.kind !== 'verdict') return;
    // Recovery's call for a person is one failure, each call.
    if (fact.by === PERSON.name) {
      if (fact.verdict?.words !== undefined && !person.has(fact.udid))
        heard.push({ udid: fact.udid, kind: 'person', text: `recovery asks for a person: ${fact.verdict.words}` });
      toggle(person, fact.udid, fact.verdict !== undefined);
    }
    // Readiness turning to failing a check automation needs is one failure, heard from its verdict as it changes.
    if (fact.by !== READINESS.name) return;
    const out = fact.verdict?.appiumOff === true && ctx.settings.support?.appiumDisabled !== true;
    if (out && !readinessOut.has(fact.udid)) {
      const serial = registry.byUdid(fact.udid)[0]?.serial ?? fact.udid;
      failed(fact.udid, serial, 'readiness', 'readiness fails a check automation needs (Appium disabled)', 'readiness');
    }
    toggle(readinessOut, fact.udid, out);
  });

  const find = (id: string) => (entries.get(id) ? id : entries.entries().find(([, e]) => e.serial === id)?.[0]);
  const action: DeviceAction<QIntent> = {
    name: 'quarantine',
    actsOn: 'pool',
    tickMs: 1_000,
    // Kept quarantines end, and an operator's release is taken, even with quarantining off.
    wanted: true,
    decide: (look) => {
      const now = clock.wall();
      const intents: QIntent[] = [];
      for (const request of files?.take() ?? []) {
        const udid = find(request.release);
        if (udid !== undefined && quarantined(entries.get(udid)))
          intents.push({ target: `quarantine ${udid}`, now: true, kind: 'release', udid, by: 'operator', who: request.by });
        else
          logger.info(
            { phone: request.release, by: request.by },
            `quarantine release of ${request.release} asked by ${request.by}: no phone by that serial or udid is quarantined`,
          );
      }
      const records = registry.list();
      const byUdid = new Map<string, DeviceSnapshot>();
      const conflicts = conflictsOf(records.map((r) => claimOf(r)));
      for (const r of records) {
        const udid = cloudIdOf(r.serial, r.udid);
        if (udid !== undefined && (!byUdid.has(udid) || (byUdid.get(udid)!.last === undefined && r.last !== undefined))) byUdid.set(udid, r);
      }
      for (const h of heard.splice(0)) failed(h.udid, h.serial ?? byUdid.get(h.udid)?.serial ?? h.udid, h.kind, h.text, layerNow(h.udid));
      for (const udid of due.keys()) if (!failures.has(udid)) due.delete(udid);
      const offSource = registry.facet(OFF_SOURCE);
      // In the booking gate's order (the phone asked about longest ago first): with more phones due than the host's
      // questions a minute, each gets its turn, shared with recovery's, rather than the first listed always.
      const candidates = look.byTurn(
        [...new Set([...failures.keys(), ...entries.entries().flatMap(([udid, e]) => (quarantined(e) ? [udid] : []))])],
        (udid) => udid,
      );
      for (const udid of candidates) {
        const target = `quarantine ${udid}`;
        if (look.isBusy(target) || intents.some((i) => i.target === target)) continue;
        const r = byUdid.get(udid);
        const entry = entries.get(udid);
        const phoneFailures = failures.get(udid) ?? [];
        const answeredAt = r?.inventoriedAt;
        const passes =
          r !== undefined &&
          r.failures === 0 &&
          r.last !== undefined &&
          answeredAt !== undefined &&
          (entry?.since === undefined || answeredAt > entry.since) &&
          !readinessOut.has(udid) &&
          !refused.has(udid) &&
          !phoneFailures.some((f) => f.at > answeredAt);
        const gone = r === undefined || r.state === 'offline' || offSource.get(udid) !== undefined;
        const serial = r?.serial ?? entry?.serial ?? udid;
        let heardVerdict: BookingVerdict | undefined;
        const decision = look.decide(cloudIdOf(serial, udid), (verdict) => {
          heardVerdict = verdict;
          return decideQuarantine(
            {
              now,
              entry,
              failures: phoneFailures,
              conflicted: r !== undefined && conflicts.has(r.serial),
              gone,
              starts: look.startsOf(target),
              passes,
              verdict,
              dueAt: due.get(udid),
            },
            settings,
          );
        });
        // Waiting for the cloud's word, or for the host's turn to ask it (no answer yet): still due as of when it became so.
        const waiting = decision.kind === 'asking' || (decision.kind === 'held' && heardVerdict?.kind === 'unknown' && heardVerdict.answer === undefined);
        if (!waiting) due.delete(udid);
        else if (!due.has(udid)) due.set(udid, now);
        switch (decision.kind) {
          case 'quarantine':
            if (r) look.release(r.key, 'quarantine', true);
            intents.push({ target, device: r?.key, counted: true, kind: 'quarantine', udid, serial, decision });
            break;
          case 'release':
            intents.push({ target, now: true, kind: 'release', udid, by: 'expiry' });
            break;
          case 'held':
            if (r)
              look.hold({
                key: r.key,
                by: 'quarantine',
                note: `not taken out of service though it keeps failing: ${decision.reason}`,
                mark: decision.reason,
                count: { key: QUARANTINES_HELD, labels: [heardVerdict?.kind === 'booked' ? 'booked' : 'unknown'] },
                line: {
                  key: 'quarantine-held',
                  fields: { serial: r.serial, udid },
                  text: `device ${udid}: not taken out of service though it keeps failing: ${decision.reason}; taken out once the cloud says it is free`,
                  subject: udid,
                },
              });
            break;
          case 'refused':
            if (r)
              look.refuse({
                key: r.key,
                action: 'quarantine',
                why: decision.reason,
                line: {
                  key: 'quarantine-refused',
                  fields: { serial: r.serial, udid, reason: decision.reason },
                  text: `device ${udid} keeps failing but is not quarantined: ${decision.reason}; the failures may be another phone's`,
                  subject: r.serial,
                },
              });
            break;
          case 'asking':
            break;
          default:
            // No longer due (or quarantined): a hold said is over, and the next is said again.
            if (r) look.release(r.key, 'quarantine', true);
        }
      }
      prune(now);
      return intents;
    },
    // Nothing awaited: a release is applied within the look (`now`), a start writes its files at once.
    // eslint-disable-next-line @typescript-eslint/require-await
    apply: async (intent) => {
      const now = clock.wall();
      const before = entries.get(intent.udid);
      if (intent.kind === 'release') {
        if (!quarantined(before)) return 'none';
        entries.set(intent.udid, { serial: before.serial, starts: before.starts, released: { at: now, by: intent.by } });
        publish(intent.udid);
        stats.counter(QUARANTINE_RELEASES).add(intent.by);
        logger.info(
          { serial: before.serial, udid: intent.udid, by: intent.by, who: intent.who },
          intent.by === 'operator'
            ? `device ${intent.udid}: quarantine released by ${intent.who ?? 'an operator'}; back in service with its next report`
            : `device ${intent.udid}: quarantine over and a check passed; back in service with its next report`,
        );
        shared.get(INCIDENT_LOG)?.note({ udid: intent.udid, serial: before.serial }, 'quarantine', `quarantine released (${intent.by})`);
        save();
        // The verdict withdrawn wakes a report (src/agent/agent.ts): the release goes out now, whoever made it.
        return 'released';
      }
      const d = intent.decision;
      const starts = [...(before?.starts ?? []).filter((t) => now - t < settings.forgetMs), now];
      const entry = {
        serial: intent.serial,
        since: now,
        until: d.until,
        layer: d.layer,
        reason: d.reason,
        evidence: d.evidence.map((f) => `${shortTime(f.at, now)} ${f.text}`),
        starts,
      };
      const words = quarantineWords(entry, now);
      const incident = shared.get(INCIDENT_LOG)?.incident({ udid: intent.udid, serial: intent.serial }, 'quarantine', words);
      entries.set(intent.udid, { ...entry, incident });
      publish(intent.udid);
      stats.counter(QUARANTINES).add(d.layer);
      logger.warn({ serial: intent.serial, udid: intent.udid, until: new Date(entry.until).toISOString(), layer: d.layer }, `device ${intent.udid}: ${words}`);
      save();
      // Out with the next report the agent sends anyway (the schedule's, within its period, or a change's): a host
      // whose phones are quarantined one after another, as the booking questions allow, sends no report more for it.
      return 'quarantined';
    },
  };

  return {
    entries,
    action,
    start: () => {
      started = true;
      files?.ensureRequests();
    },
    stop: () => {
      started = false;
    },
    /** The cloud's answer: a phone it refuses anew is one failure. */
    reported: (outcome: ReportHeard) => {
      if (!outcome.delivered) return;
      const now = new Set<string>();
      const sent = new Map(outcome.devices.map((d) => [d.udid, d]));
      for (const f of outcome.failed) {
        const d = sent.get(f.udid);
        if (!d || now.has(f.udid)) continue;
        now.add(f.udid);
        if (!refused.has(f.udid)) failed(f.udid, d.serialNumber ?? f.udid, 'cloud', `the cloud refused it: ${f.message}`, 'cloud');
      }
      refused = now;
    },
  };
}
