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

export class Quarantine {
  readonly settings: QuarantineSettings;
  readonly files: QuarantineFiles | undefined;
  private started = false;
  private readonly failures = new Map<string, Failure[]>();
  /** Each record's run of failed inventories already counted (its first failure's monotonic ms). */
  private readonly seenRun = new Map<string, number>();
  /** Phones whose call for a person is counted; phones whose readiness failing, or whose refusal by the cloud, is. */
  private readonly person = new Set<string>();
  /** The failures heard since the last look, each counted at the look, blamed on the layer the in-service clock blames then. */
  private readonly heard: Array<{ udid: string; serial?: string; kind: FailureKind; text: string }> = [];
  private readonly readinessOut = new Set<string>();
  private refused = new Set<string>();
  /** Phones due whose booking question is not answered yet, and since when (wall ms): their evidence is counted as of then. */
  private readonly due = new Map<string, number>();

  constructor(private readonly ctx: FeatureContext) {
    const q = ctx.settings.quarantine;
    this.settings = {
      failures: q.failures,
      windowMs: q.windowMinutes * 60_000,
      holdMs: q.holdMinutes * 60_000,
      maxHoldMs: Math.max(q.holdMinutes, q.maxHoldMinutes) * 60_000,
      forgetMs: q.forgetHours * 3_600_000,
    };
    this.files = ctx.stateDir === undefined ? undefined : new QuarantineFiles(ctx.stateDir, ctx.logger);
    const facet = ctx.registry.facet(QUARANTINE);
    for (const [udid, entry] of this.files?.load() ?? []) {
      facet.set(udid, entry);
      this.publish(udid);
    }
    ctx.registry.readings.on('outcome', (key) => this.outcome(key));
    ctx.registry.timeline.on('fact', (fact) => {
      // Inventories failing together are the host's: those already counted since are no phone's evidence.
      if (fact.kind === 'starved' && fact.since !== undefined) {
        const since = ctx.clock.wall() - (ctx.clock.monotonic() - fact.since);
        for (const list of this.failures.values()) for (const f of list) if (f.kind === 'inventory' && f.at >= since) f.layer = 'host';
      }
      if (fact.kind !== 'verdict') return;
      // Recovery's call for a person is one failure, each call.
      if (fact.by === PERSON.name) {
        if (fact.verdict?.words !== undefined && !this.person.has(fact.udid))
          this.heard.push({ udid: fact.udid, kind: 'person', text: `recovery asks for a person: ${fact.verdict.words}` });
        toggle(this.person, fact.udid, fact.verdict !== undefined);
      }
      // Readiness turning to failing a check automation needs is one failure, heard from its verdict as it changes.
      if (fact.by !== READINESS.name) return;
      const out = fact.verdict?.appiumOff === true && ctx.settings.support?.appiumDisabled !== true;
      if (out && !this.readinessOut.has(fact.udid)) {
        const serial = ctx.registry.byUdid(fact.udid)[0]?.serial ?? fact.udid;
        this.failed(fact.udid, serial, 'readiness', 'readiness fails a check automation needs (Appium disabled)', 'readiness');
      }
      toggle(this.readinessOut, fact.udid, out);
    });
  }

  /** An inventory's outcome: a run of failed inventories of a record is one failure, heard once, when it starts. */
  private outcome(key: string) {
    const r = this.ctx.registry.get(key);
    if (!r || r.failures === 0 || !r.failure) {
      this.seenRun.delete(key);
      return;
    }
    const udid = cloudIdOf(r.serial, r.udid);
    if (udid === undefined || this.seenRun.get(key) === r.failure.first) return;
    setBounded(this.seenRun, key, r.failure.first, PHONES_KEPT);
    this.heard.push({ udid, serial: r.serial, kind: 'inventory', text: `inventory failed: ${r.failure.text}` });
  }

  /** The phone's quarantine as the timeline holds it for the report and the views: out of service, Appium off, why and until when. */
  private publish(udid: string) {
    const e = this.entries.get(udid);
    this.ctx.registry.timeline.verdict(
      udid,
      QUARANTINED,
      quarantined(e)
        ? {
            out: { state: 'quarantined', layer: e.layer ?? 'phone' },
            unavailable: true,
            appiumOff: true,
            words: quarantineWords(e, this.ctx.clock.wall()),
            detail: { since: e.since, until: e.until },
          }
        : undefined,
    );
  }

  get entries() {
    return this.ctx.registry.facet(QUARANTINE);
  }

  start() {
    this.started = true;
    this.files?.ensureRequests();
  }

  stop() {
    this.started = false;
  }

  /** One failure of a phone, noted in its flight recorder whether it counts or not. */
  private failed(udid: string, serial: string, kind: FailureKind, text: string, layer: Layer) {
    const at = this.ctx.clock.wall();
    let list = this.failures.get(udid);
    if (!list) setBounded(this.failures, udid, (list = []), PHONES_KEPT);
    list.push({ at, kind, text: withinMessage(text), layer });
    if (list.length > FAILURES_KEPT) list.splice(0, list.length - FAILURES_KEPT);
    const ring: EventKind = kind === 'person' ? 'action' : kind;
    this.ctx.shared.get(INCIDENT_LOG)?.note({ udid, serial }, ring, `failure (${kind}, blamed on its ${layer}): ${text}`);
  }

  /** The layer the in-service clock blames the phone's trouble on now. */
  private layerNow(udid: string) {
    return this.ctx.shared.get(PHONE_STATE)?.now(udid)?.layer ?? 'phone';
  }

  /** The cloud's answer: a phone it refuses anew is one failure. */
  reported(outcome: ReportHeard) {
    if (!outcome.delivered) return;
    const now = new Set<string>();
    const sent = new Map(outcome.devices.map((d) => [d.udid, d]));
    for (const f of outcome.failed) {
      const d = sent.get(f.udid);
      if (!d || now.has(f.udid)) continue;
      now.add(f.udid);
      if (!this.refused.has(f.udid)) this.failed(f.udid, d.serialNumber ?? f.udid, 'cloud', `the cloud refused it: ${f.message}`, 'cloud');
    }
    this.refused = now;
  }

  private save() {
    if (this.started) this.files?.save(this.entries.entries());
  }

  /** The phones' entries of no use any more (no quarantine now, none within the forget horizon) go. */
  private prune(now: number) {
    let dropped = false;
    for (const [udid, e] of this.entries.entries()) {
      if (quarantined(e) || e.starts.some((t) => now - t < this.settings.forgetMs)) continue;
      this.entries.delete(udid);
      dropped = true;
    }
    for (const [udid, list] of this.failures) {
      // A phone waiting for the cloud's word keeps the evidence it became due on.
      const asOf = this.due.get(udid) ?? now;
      const kept = list.filter((f) => asOf - f.at < this.settings.windowMs || f.at > asOf);
      if (kept.length) this.failures.set(udid, kept);
      else this.failures.delete(udid);
    }
    if (dropped) this.save();
  }

  action(): DeviceAction<QIntent> {
    const { ctx } = this;
    const { registry, logger, clock, stats } = ctx;
    const find = (id: string) => (this.entries.get(id) ? id : this.entries.entries().find(([, e]) => e.serial === id)?.[0]);
    return {
      name: 'quarantine',
      actsOn: 'pool',
      tickMs: 1_000,
      // Kept quarantines end, and an operator's release is taken, even with quarantining off.
      wanted: true,
      decide: (look) => {
        const now = clock.wall();
        const intents: QIntent[] = [];
        for (const request of this.files?.take() ?? []) {
          const udid = find(request.release);
          if (udid !== undefined && quarantined(this.entries.get(udid)))
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
        for (const h of this.heard.splice(0)) this.failed(h.udid, h.serial ?? byUdid.get(h.udid)?.serial ?? h.udid, h.kind, h.text, this.layerNow(h.udid));
        for (const udid of this.due.keys()) if (!this.failures.has(udid)) this.due.delete(udid);
        const offSource = registry.facet(OFF_SOURCE);
        // In the booking gate's order (the phone asked about longest ago first): with more phones due than the host's
        // questions a minute, each gets its turn, shared with recovery's, rather than the first listed always.
        const candidates = look.byTurn(
          [...new Set([...this.failures.keys(), ...this.entries.entries().flatMap(([udid, e]) => (quarantined(e) ? [udid] : []))])],
          (udid) => udid,
        );
        for (const udid of candidates) {
          const target = `quarantine ${udid}`;
          if (look.isBusy(target) || intents.some((i) => i.target === target)) continue;
          const r = byUdid.get(udid);
          const entry = this.entries.get(udid);
          const failures = this.failures.get(udid) ?? [];
          const answeredAt = r?.inventoriedAt;
          const passes =
            r !== undefined &&
            r.failures === 0 &&
            r.last !== undefined &&
            answeredAt !== undefined &&
            (entry?.since === undefined || answeredAt > entry.since) &&
            !this.readinessOut.has(udid) &&
            !this.refused.has(udid) &&
            !failures.some((f) => f.at > answeredAt);
          const gone = r === undefined || r.state === 'offline' || offSource.get(udid) !== undefined;
          const serial = r?.serial ?? entry?.serial ?? udid;
          let heard: BookingVerdict | undefined;
          const decision = look.decide(cloudIdOf(serial, udid), (verdict) => {
            heard = verdict;
            return decideQuarantine(
              {
                now,
                entry,
                failures,
                conflicted: r !== undefined && conflicts.has(r.serial),
                gone,
                starts: look.startsOf(target),
                passes,
                verdict,
                dueAt: this.due.get(udid),
              },
              this.settings,
            );
          });
          // Waiting for the cloud's word, or for the host's turn to ask it (no answer yet): still due as of when it became so.
          const waiting = decision.kind === 'asking' || (decision.kind === 'held' && heard?.kind === 'unknown' && heard.answer === undefined);
          if (!waiting) this.due.delete(udid);
          else if (!this.due.has(udid)) this.due.set(udid, now);
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
                  count: { key: QUARANTINES_HELD, labels: [heard?.kind === 'booked' ? 'booked' : 'unknown'] },
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
        this.prune(now);
        return intents;
      },
      // Nothing awaited: a release is applied within the look (`now`), a start writes its files at once.
      // eslint-disable-next-line @typescript-eslint/require-await
      apply: async (intent) => {
        const now = clock.wall();
        const before = this.entries.get(intent.udid);
        if (intent.kind === 'release') {
          if (!quarantined(before)) return 'none';
          this.entries.set(intent.udid, { serial: before.serial, starts: before.starts, released: { at: now, by: intent.by } });
          this.publish(intent.udid);
          stats.counter(QUARANTINE_RELEASES).add(intent.by);
          logger.info(
            { serial: before.serial, udid: intent.udid, by: intent.by, who: intent.who },
            intent.by === 'operator'
              ? `device ${intent.udid}: quarantine released by ${intent.who ?? 'an operator'}; back in service with its next report`
              : `device ${intent.udid}: quarantine over and a check passed; back in service with its next report`,
          );
          this.ctx.shared.get(INCIDENT_LOG)?.note({ udid: intent.udid, serial: before.serial }, 'quarantine', `quarantine released (${intent.by})`);
          this.save();
          // The verdict withdrawn wakes a report (src/agent/agent.ts): the release goes out now, whoever made it.
          return 'released';
        }
        const d = intent.decision;
        const starts = [...(before?.starts ?? []).filter((t) => now - t < this.settings.forgetMs), now];
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
        const incident = this.ctx.shared.get(INCIDENT_LOG)?.incident({ udid: intent.udid, serial: intent.serial }, 'quarantine', words);
        this.entries.set(intent.udid, { ...entry, incident });
        this.publish(intent.udid);
        stats.counter(QUARANTINES).add(d.layer);
        logger.warn(
          { serial: intent.serial, udid: intent.udid, until: new Date(entry.until).toISOString(), layer: d.layer },
          `device ${intent.udid}: ${words}`,
        );
        this.save();
        // Out with the next report the agent sends anyway (the schedule's, within its period, or a change's): a host
        // whose phones are quarantined one after another, as the booking questions allow, sends no report more for it.
        return 'quarantined';
      },
    };
  }
}
