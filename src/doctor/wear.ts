// The doctor's wear lines: what each phone tells of its wear, read in the
// doctor's one shell per device with the platform's command
// (ServiceDoctor.wearCommand), judged as the daemon judges it (the wear
// feature's judge.ts), with the daemon's history of the phone where the
// state directory holds one (a forecast needs days; one look has none).
// Pure: the readings, the histories and the settings in, checklist items out.
import { dayOf } from '../features/wear/forecast.js';
import { withFigures, type DaySample } from '../features/wear/history.js';
import { judgeWear, type WearSettings } from '../features/wear/judge.js';
import { leftovers } from '../features/wear/leftovers.js';
import type { WearReading } from '../platforms/wear.js';
import type { CheckItem } from './checklist.js';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { WEAR_FILE, WearFile } from '../features/wear/store.js';

/** The daemon's wear histories in its state directory (by udid, which is an Android phone's serial over USB), read-only; none when it has none. */
export function readWearHistories(stateDir: string, logger: Logger): ReadonlyMap<string, readonly DaySample[]> {
  return new WearFile(join(stateDir, WEAR_FILE), logger).load();
}

export interface PhoneWear {
  serial: string;
  wear?: WearReading;
  /** Samsung's own figures from the battery output of the same shell (dumpsys battery), where it prints them. */
  samsung?: { cycleCount?: number; healthPercent?: number };
}

/**
 * Per phone that told something: a warning per finding within
 * wear.noticeDays (what and when, with what to do), else one ok line with its
 * figures; and what it could not read, and why, on an ok line of its own
 * (unknown is never worn). No line for a phone whose wear part did not run.
 */
export function wearItems(
  phones: readonly PhoneWear[],
  settings: WearSettings,
  histories: ReadonlyMap<string, readonly DaySample[]>,
  nowMs: number,
): CheckItem[] {
  const items: CheckItem[] = [];
  const today = dayOf(nowMs);
  for (const { serial, wear, samsung } of phones) {
    if (!wear) continue;
    const battery = {
      health: wear.batteries.find((b) => b.healthPercent !== undefined)?.healthPercent ?? samsung?.healthPercent,
      cycles: wear.batteries.find((b) => b.cycleCount !== undefined)?.cycleCount ?? samsung?.cycleCount,
    };
    const history = withFigures(histories.get(serial) ?? [], today, { ...battery, lifeUsed: wear.storage?.lifeUsedPercent, appId: wear.apps?.maxAppId });
    const findings = judgeWear(history, { tmpKib: wear.tmp?.kib, preEol: wear.storage?.preEol }, settings, today).filter((f) => f.days <= settings.noticeDays);
    for (const f of findings)
      items.push({
        status: 'warn',
        phone: true,
        finding: `device ${serial}: wear ${f.reason}${f.days === 0 ? ' now' : ` in about ${f.days} days`}`,
        advice: f.message,
      });
    const figures = [
      battery.health !== undefined && `battery ${battery.health} % of design`,
      battery.cycles !== undefined && `${battery.cycles} cycles`,
      wear.storage?.lifeUsedPercent !== undefined && `flash ${wear.storage.lifeUsedPercent} % of its life used`,
      wear.apps && `largest app id ${wear.apps.maxAppId}`,
      wear.thirdParty && settings.baselinePackages.length > 0 && `${leftovers(wear.thirdParty, settings.baselinePackages).length} leftover packages`,
      wear.tmp?.kib !== undefined && `${Math.round(wear.tmp.kib / 1024)} MiB in /data/local/tmp`,
    ].filter((x): x is string => typeof x === 'string');
    if (!findings.length && figures.length) items.push({ status: 'ok', phone: true, finding: `device ${serial}: wear: ${figures.join(', ')}` });
    if (wear.unread.length)
      items.push({
        status: 'ok',
        phone: true,
        finding: `device ${serial}: wear not told by ${wear.unread.map((u) => `${u.what} (${u.why}${u.detail ? `: ${u.detail}` : ''})`).join(', ')}: never judged worn on it`,
      });
  }
  return items;
}
