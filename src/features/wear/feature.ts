// Wear under the DeviceFeature contract: once per inventory that answered,
// what the phone told of its wear (the platform's wear capability,
// src/platforms/wear.ts, and Samsung's own battery figures the inventory
// carries beside the battery) becomes the day's sample of the phone's
// history, kept across restarts by udid (store.ts); the judgments (judge.ts)
// forecast from it the days until each figure passes its limit. A finding
// within `wear.noticeDays` is a note on the device's message and one log
// line when it starts; `list` shows the WEAR column, /metrics the days left
// per phone and reason and the phones by reason. It reads what the
// inventory already read: it opens no session.
import { join } from 'node:path';
import { udidSample, type DeviceGauge, type RowColumn } from '../../devices/feature-view.js';
import { claimOf } from '../../devices/claims.js';
import { facetKey } from '../../devices/facet.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { limited } from '../../log/limited.js';
import { dropUndefined } from '../../util/drop-undefined.js';
import type { BatteryWear, WearReading } from '../../platforms/wear.js';
import type { Timer } from '../../util/clock.js';
import { every } from '../../util/clock.js';
import type { Feature, FeatureContext } from '../context.js';
import { wearDoctor } from './doctor.js';
import { dayOf } from './forecast.js';
import { KEPT_DAYS, latest, withExposure, withFigures, type DaySample, type Figures } from './history.js';
import { noHistoryWhy } from './identity.js';
import { judgeWear, REASONS, type Finding, type Now, type Reason } from './judge.js';
import { leftovers } from './leftovers.js';
import { wearMetrics } from './metrics.js';
import { wearOf, type WearRow } from './row.js';
import { bound, MAX_PHONES, WEAR_FILE, WearFile, type Histories } from './store.js';

/** What wear keeps of a phone: what its last reading told, and its findings (its history is the store's, by udid). */
interface WearState {
  /** What its last reading alone gives as history (its day's figures, the time held full and warm since the one before): what it is judged on while no history is linked to it. */
  look: DaySample[];
  /** What the last reading told beyond the history. */
  now: Now;
  figures: Figures;
  /** The row's figures of the last reading beside the findings (WearRow). */
  facts: WearRow['wear'];
  unread: WearReading['unread'];
  findings: Finding[];
  /** Why no history was read or written for it (another listed device gives its udid), while none is. */
  noForecast?: string;
  /** The last battery observation: wall ms and whether it was full and warm, for the time held full and warm. */
  seen?: { atMs: number; warmFull: boolean };
  /** Wall ms of its last reading: a phone not read for longer than the history's horizon is forgotten. */
  readAtMs: number;
}

/** Wear's facet: by the device's stable key, past its connections (a phone's history outlives a replug). */
export const WEAR = facetKey<WearState>('wear', 'device');

/** The longest gap between two battery readings that counts as time held full: a longer one is a phone that was away. */
const MAX_GAP_MS = 30 * 60_000;
/** Where wear's series go: after health's battery series, before the free storage's. */
const BEFORE_STORAGE = { before: 'device_agent_device_storage_free_bytes' };
/** How often the daemon forgets what is past the horizon and saves the histories. */
const SAVE_MS = 10 * 60_000;
/** How long a phone not read is remembered (its findings, so that a replug does not say them again): the history's horizon. */
const FORGET_MS = KEPT_DAYS * 86_400_000;

/**
 * The feature, reading through the platforms' wear capability (ctx.platforms.wear): the first platform that read a
 * device answers for it. `stored`: where the histories are held in memory, by udid (given by a test that watches
 * their bounds, as the clock is).
 */
export function wearFeature(ctx: FeatureContext, stored: Histories = new Map()): Feature {
  const { registry, logger, clock } = ctx;
  const settings = ctx.settings.wear;
  const reader = ctx.platforms.wear;
  const state = registry.facet(WEAR);
  const file = ctx.stateDir === undefined ? undefined : new WearFile(join(ctx.stateDir, WEAR_FILE), logger);
  // Read at once, also by a command that changes nothing (`list` shows the forecasts the daemon's history gives,
  // `doctor` judges with it); written only by the daemon.
  for (const [udid, history] of file?.load() ?? []) stored.set(udid, history);
  bound(stored, dayOf(clock.wall()));
  let dirty = false;
  let timer: Timer | undefined;
  const save = () => {
    if (!file || !dirty) return;
    bound(stored, dayOf(clock.wall()));
    if (file.save(stored)) dirty = false;
  };
  // The daemon's tick: what has gone past the horizon is forgotten though no phone answers, then the histories saved.
  const tick = () => {
    const now = clock.wall();
    forget(now, dayOf(now));
    save();
  };
  const near = (f: Finding) => f.days <= settings.noticeDays;

  const answered = (device: DeviceSnapshot) => {
    const reading = reader.reading(registry, device.key);
    const info = device.last;
    const { cycleCount, healthPercent } = info?.batteryDetail ?? {};
    const samsung =
      cycleCount !== undefined || healthPercent !== undefined ? [dropUndefined<BatteryWear>({ source: 'samsung', cycleCount, healthPercent })] : [];
    const batteries = [...(reading?.batteries ?? []), ...samsung];
    if (!reading && batteries.length === 0 && !info?.battery) return;
    const previous = state.get(device.key);
    const udid = device.udid ?? info?.udid;
    const now = clock.wall();
    const today = dayOf(now);
    const figures: Figures = {
      health: batteries.find((b) => b.healthPercent !== undefined)?.healthPercent,
      cycles: batteries.find((b) => b.cycleCount !== undefined)?.cycleCount,
      lifeUsed: reading?.storage?.lifeUsedPercent,
      appId: reading?.apps?.maxAppId,
    };
    // Time held full and warm: between two readings of this phone both full and warm, up to MAX_GAP_MS.
    const battery = info?.battery;
    const atMs = info?.batteryDetail?.observedAtMs ?? now;
    const warmFull = (battery?.percentage === '100' || battery?.status === 'FULL') && (battery.temperature ?? -Infinity) >= settings.swellingWarmCelsius;
    const held = warmFull && previous?.seen?.warmFull && atMs > previous.seen.atMs ? Math.min(atMs - previous.seen.atMs, MAX_GAP_MS) / 60_000 : 0;
    const recorded = (h: readonly DaySample[]) => withExposure(withFigures(h, today, figures), dayOf(atMs), held);
    // The history is the udid's, which the phone chooses: linked only while no other listed device gives it (identity.ts).
    // Its identity is in conflict only with the records that give its udid: the whole list is read when it is.
    const kin = device.udid === undefined ? [device] : registry.byUdid(device.udid).filter((r) => r.platform === device.platform);
    const claims = kin.map((r) => claimOf(r));
    const noForecast = udid === undefined ? undefined : noHistoryWhy(device.serial, claims);
    const look = recorded([]);
    const history = udid !== undefined && noForecast === undefined ? recorded(stored.get(udid) ?? []) : look;
    const nowFacts: Now = dropUndefined({ tmpKib: reading?.tmp?.kib, preEol: reading?.storage?.preEol });
    const findings = judgeWear(history, nowFacts, settings, today);
    const next: WearState = dropUndefined({
      look,
      now: nowFacts,
      figures,
      facts: dropUndefined({
        batterySource: batteries[0]?.source,
        storageLifeUsedPercent: latest(history, 'lifeUsed'),
        maxAppId: figures.appId,
        leftoverPackages:
          reading?.thirdParty && settings.baselinePackages.length > 0 ? leftovers(reading.thirdParty, settings.baselinePackages).length : undefined,
        tmpKib: reading?.tmp?.kib,
      }),
      unread: reading?.unread ?? [],
      findings,
      noForecast,
      seen: battery ? { atMs, warmFull } : previous?.seen,
      readAtMs: now,
    });
    state.set(device.key, next);
    if (udid !== undefined && noForecast === undefined) {
      stored.set(udid, history);
      dirty = true;
    }
    if (noForecast !== undefined) {
      // The phones it shares the udid with were judged with the history until now: on their own look from here on.
      const peers = registry.list(device.platform);
      const claims = peers.map((r) => claimOf(r));
      let told = previous?.noForecast !== undefined;
      for (const peer of peers) {
        const w = peer.key === device.key ? undefined : state.get(peer.key);
        const why = w && noHistoryWhy(peer.serial, claims);
        if (!w || why === undefined) continue;
        told ||= w.noForecast !== undefined;
        state.set(peer.key, { ...w, findings: judgeWear(w.look, w.now, settings, dayOf(w.readAtMs)), noForecast: why });
      }
      if (!told)
        // A consequence, at info: the identity conflict itself is the platform's one warning, with what to do.
        limited(logger).info(
          'wear-identity',
          { serial: device.serial, udid },
          `device ${device.serial}: no wear forecast while another listed device gives its udid ${udid}: its wear history is neither read nor written meanwhile`,
          `device ${device.serial}`,
        );
    } else if (previous?.noForecast !== undefined)
      logger.info(
        { serial: device.serial, udid },
        `device ${device.serial}: no other listed device gives its udid ${udid} now: its wear history is read and written again`,
      );
    // Over the cap only: sorting every phone at each answer made a lab's first inventory quadratic (the horizon is the tick's).
    if (stored.size > MAX_PHONES || state.entries().length > MAX_PHONES) forget(now, today);
    say(device, previous?.findings ?? [], findings);
  };

  // Bounded whatever comes and goes: a phone not read for the history's horizon is forgotten, and at most MAX_PHONES
  // are kept (those read longest ago go first), as the histories are (store.ts).
  const forget = (now: number, today: number) => {
    const byAge = state.entries().sort((a, b) => a[1].readAtMs - b[1].readAtMs);
    for (const [i, [key, w]] of byAge.entries()) if (i < byAge.length - MAX_PHONES || now - w.readAtMs > FORGET_MS) state.delete(key);
    bound(stored, today);
  };

  const say = (device: DeviceSnapshot, before: readonly Finding[], after: readonly Finding[]) => {
    const name = `device ${device.udid ?? device.serial}`;
    const was = new Set(before.filter(near).map((f) => f.reason));
    const is = new Set(after.filter(near).map((f) => f.reason));
    for (const f of after)
      if (near(f) && !was.has(f.reason))
        limited(logger).warn('wear-near', { serial: device.serial, reason: f.reason, days: f.days }, `${name}: ${f.message}`, name);
    for (const reason of was)
      if (!is.has(reason))
        logger.info({ serial: device.serial, reason }, `${name}: ${reason.replaceAll('_', ' ')} no longer needs action within ${settings.noticeDays} days`);
  };

  return {
    name: 'wear',
    start: () => {
      timer = every(clock, SAVE_MS, tick, { unref: true });
    },
    stop: () => {
      // Only the daemon, which started it, writes: a command that changes nothing never does.
      if (!timer) return;
      timer.cancel();
      timer = undefined;
      save();
    },
    answered,
    // Each phone's wear read in the doctor's one shell, judged with the daemon's histories (read-only: a forecast needs days).
    doctor: wearDoctor(
      settings,
      () => stored,
      () => clock.wall(),
    ),
    notes: (device) => (state.get(device.key)?.findings ?? []).filter(near).map((f) => f.message),
    fields: () => [
      { key: 'batteryCycles', place: { before: 'storageFreeBytes' }, value: (s) => state.get(s.device?.key ?? '')?.figures.cycles },
      { key: 'batteryHealthPercent', place: { before: 'storageFreeBytes' }, value: (s) => state.get(s.device?.key ?? '')?.figures.health },
      {
        key: 'wear',
        place: { before: 'storageFreeBytes' },
        value: (s) => {
          const w = s.device ? state.get(s.device.key) : undefined;
          if (!w) return undefined;
          const f = w.findings[0];
          return dropUndefined({
            ...w.facts,
            daysLeft: f?.days,
            reason: f?.reason,
            noForecast: w.noForecast,
            findings: w.findings.length ? w.findings.map((x) => ({ reason: x.reason, days: x.days })) : undefined,
            unread: w.unread.length ? w.unread.map((u) => `${u.what}: ${u.why}`) : undefined,
          });
        },
      },
    ],
    // Before FREE: after health's HEALTH (its place is after CHARGING), in the order the battery's columns always had.
    columns: () => [capacityColumn, cyclesColumn, wearColumn],
    gauges: () => [
      gauge(
        'device_agent_device_battery_cycles',
        'Full charge cycles of the battery, where the phone counts them (sysfs, the tradeinmode report, Samsung, an iPhone diagnostics relay).',
        (w) => w.batteryCycles,
      ),
      gauge(
        'device_agent_device_battery_health_percent',
        'What the battery holds when full, in % of its design capacity, where the phone tells it.',
        (w) => w.batteryHealthPercent,
      ),
      {
        name: 'device_agent_device_wear_days_left',
        help: `Days until a wear figure of the phone passes its limit, by reason (${REASONS.join(', ')}); 0: now. Only reasons a forecast or a reading tells.`,
        place: BEFORE_STORAGE,
        samples: (r) => (wearOf(r).wear?.findings ?? []).map((f) => ({ labels: { udid: r.udid, reason: f.reason }, value: f.days })),
      },
      gauge(
        'device_agent_device_storage_life_used_percent',
        "Share of the flash's rated life used, where the phone tells it (the upper end of an eMMC or UFS band).",
        (w) => w.wear?.storageLifeUsedPercent,
      ),
      gauge('device_agent_device_app_id_max', 'The largest app id of an installed third-party package (apps get 10000 to 19999).', (w) => w.wear?.maxAppId),
      gauge(
        'device_agent_device_leftover_packages',
        'Third-party packages installed that wear.baselinePackages does not list.',
        (w) => w.wear?.leftoverPackages,
      ),
      gauge('device_agent_device_tmp_bytes', 'What /data/local/tmp holds (du), bytes.', (w) => w.wear?.tmpKib && w.wear.tmpKib * 1024),
    ],
    metrics: () =>
      // The phones listed now: one remembered after it went (for the horizon) is nobody's to act on.
      wearMetrics(
        state.entries().flatMap(([key, w]) => (registry.get(key) ? [w] : [])),
        settings.noticeDays,
      ),
  };
}

/** A per-phone gauge of wear's row, placed after health's battery series. */
function gauge(name: string, help: string, value: (w: WearRow) => number | undefined): DeviceGauge {
  return { name, help, place: BEFORE_STORAGE, samples: (r) => udidSample(r, value(wearOf(r))) };
}

/** A column of one figure, painted by when its findings need action: due now bad, forecast a warning. */
function column(title: string, text: (w: WearRow) => string | undefined, ...reasons: Reason[]): RowColumn {
  return {
    title,
    place: { before: 'FREE' },
    cell: (r) => text(wearOf(r)) ?? '',
    paint: (row, t, p) => {
      const days = wearOf(row)
        .wear?.findings?.filter((f) => reasons.includes(f.reason))
        .reduce((min, f) => Math.min(min, f.days), Infinity);
      return days === undefined || days === Infinity ? t : days === 0 ? p.bad(t) : p.warn(t);
    },
    optional: true,
  };
}

/** What the battery holds when full, in % of its design capacity, where the phone tells it. */
const capacityColumn = column(
  'CAPACITY',
  (w) => (w.batteryHealthPercent === undefined ? undefined : `${w.batteryHealthPercent}%`),
  'battery_capacity',
  'swelling',
);

const cyclesColumn = column('CYCLES', (w) => w.batteryCycles?.toString(), 'battery_cycles');

/** The soonest action a phone's wear needs: its reason and when ("app_ids in 12 d", "battery_capacity now"), painted by it. */
const wearColumn = column(
  'WEAR',
  ({ wear: w }) => {
    if (w?.reason === undefined || w.daysLeft === undefined) return undefined;
    return w.daysLeft === 0 ? `${w.reason} now` : `${w.reason} in ${w.daysLeft} d`;
  },
  ...REASONS,
);
