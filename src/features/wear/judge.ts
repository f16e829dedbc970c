// Wear's judgments, pure: from a phone's history of its figures and its
// latest reading, for each wear reason the days until action (0: now), with
// what to do. A figure the phone never told gives no finding: unknown is
// never worn. The one home of wear judgments (health judges what holds now:
// hot, low, full storage).
import type { Settings } from '../../config/schema.js';
import { forecast, type Forecast, type ForecastRule } from './forecast.js';
import { latest, series, warmFullHours, type History } from './history.js';

/** The `wear.*` settings (their defaults: settings.ts). */
export type WearSettings = Settings['wear'];

/** Why a phone needs someone, a bounded set (a metric label). */
export const REASONS = ['battery_capacity', 'battery_cycles', 'swelling', 'app_ids', 'storage_life', 'tmp'] as const;
export type Reason = (typeof REASONS)[number];

export interface Finding {
  reason: Reason;
  /** Whole days until action; 0 when it is due now. */
  days: number;
  message: string;
}

/** What the latest reading tells beyond the history: the tmp folder and the eMMC's pre-EOL. */
export interface Now {
  tmpKib?: number;
  preEol?: 'normal' | 'warning' | 'urgent';
}

/** Every finding of a phone, soonest first. */
export function judgeWear(history: History, now: Now, s: WearSettings, today: number) {
  const out: Finding[] = [];
  const add = (f: Finding | undefined) => f && out.push(f);
  if (s.batteryMinHealthPercent > 0) {
    const rule: ForecastRule = { limit: s.batteryMinHealthPercent, direction: 'down', step: 1 };
    add(finding('battery_capacity', forecast(series(history, 'health'), rule, today), (f) => capacityMessage(f, rule)));
  }
  if (s.batteryMaxCycles > 0) {
    const rule: ForecastRule = { limit: s.batteryMaxCycles, direction: 'up', step: 1 };
    add(finding('battery_cycles', forecast(series(history, 'cycles'), rule, today), (f) => cyclesMessage(f, rule)));
  }
  if (s.swellingHeldFullHours > 0) {
    const hours = warmFullHours(history, today);
    if (hours > s.swellingHeldFullHours)
      add({
        reason: 'swelling',
        days: 0,
        message:
          `battery held full at ${s.swellingWarmCelsius} °C or warmer for ${Math.round(hours)} h of the last 7 days (limit ${s.swellingHeldFullHours} h): ` +
          'a battery kept full and warm swells; check it for swelling, and let it run down now and then or cap its charge (charge.ways)',
      });
  }
  if (s.appIdLimit > 0) {
    const rule: ForecastRule = { limit: s.appIdLimit, direction: 'up', step: 1 };
    // At the limit counts: the lab server reboots a phone from 19990 on.
    const f = forecast(series(history, 'appId'), { ...rule, limit: rule.limit - 1 }, today);
    add(finding('app_ids', f, (g) => appIdMessage(g, rule, latest(history, 'appId'))));
  }
  if (s.storageMaxLifeUsedPercent > 0) {
    const rule: ForecastRule = { limit: s.storageMaxLifeUsedPercent - 1, direction: 'up', step: 10 };
    const urgent = now.preEol === 'urgent';
    const f = urgent ? { days: 0, value: latest(history, 'lifeUsed') ?? 100 } : forecast(series(history, 'lifeUsed'), rule, today);
    add(finding('storage_life', f, (g) => storageMessage(g, s.storageMaxLifeUsedPercent, urgent)));
  }
  if (s.tmpMaxMiB > 0 && now.tmpKib !== undefined && now.tmpKib > s.tmpMaxMiB * 1024) {
    add({
      reason: 'tmp',
      days: 0,
      message: `/data/local/tmp holds ${mib(now.tmpKib)} (limit ${s.tmpMaxMiB} MiB): files piling up from tests fill the phone; clear what the tests left there`,
    });
  }
  return out.sort((a, b) => a.days - b.days);
}

function finding(reason: Reason, f: Forecast | undefined, message: (f: Forecast) => string) {
  return f === undefined ? undefined : { reason, days: f.days, message: message(f) };
}

function capacityMessage(f: Forecast, rule: ForecastRule) {
  if (f.days === 0)
    return `battery holds ${Math.round(f.value)} % of its design capacity (limit ${rule.limit} %): replace the battery or retire the phone, and check it for swelling`;
  return `battery at ${Math.round(f.value)} % of its design capacity, losing ${rate(f)} a day: under ${rule.limit} % in about ${f.days} days; plan to replace the battery`;
}

function cyclesMessage(f: Forecast, rule: ForecastRule) {
  if (f.days === 0)
    return `battery past ${rule.limit} full charge cycles (${Math.round(f.value)}): it holds less each cycle now; plan to replace the battery, and check it for swelling`;
  return `battery at ${Math.round(f.value)} full charge cycles, ${rate(f)} a day: past ${rule.limit} in about ${f.days} days; plan to replace the battery`;
}

function appIdMessage(f: Forecast, rule: ForecastRule, value: number | undefined) {
  if (f.days === 0)
    return (
      `app ids nearly used up: an installed package has app id ${value ?? Math.round(f.value)} (limit ${rule.limit}; apps get 10000 to 19999): ` +
      'installs will fail with space left; reboot the phone, and factory-reset it if installs still fail'
    );
  return `app ids at ${Math.round(f.value)}, ${rate(f)} more a day: ${rule.limit} in about ${f.days} days, when installs start to fail; plan a factory reset`;
}

function storageMessage(f: Forecast, limit: number, urgent: boolean) {
  if (urgent) return 'flash storage at the end of its life (eMMC pre-EOL urgent: 90 % of its reserve blocks used): back up what it holds and retire the phone';
  if (f.days === 0) return `flash storage has used ${Math.round(f.value)} % of its rated life (limit ${limit} %): back up what it holds and retire the phone`;
  return `flash storage at ${Math.round(f.value)} % of its rated life: ${limit} % in about ${f.days} days; plan to retire the phone`;
}

function rate(f: Forecast) {
  const r = f.ratePerDay ?? 0;
  return r >= 10 ? String(Math.round(r)) : r >= 1 ? r.toFixed(1) : r.toFixed(2);
}

function mib(kib: number) {
  return kib >= 1024 * 1024 ? `${(kib / 1024 / 1024).toFixed(1)} GiB` : `${Math.round(kib / 1024)} MiB`;
}
