// Wear's lines in `doctor`: what each phone tells of its wear, read in the
// doctor's one shell per device with the platform's command
// (ServiceDoctor.wearCommand), judged as the daemon judges it (judge.ts),
// with the daemon's history of the phone where the state directory holds one
// (a forecast needs days; one look has none). Samsung's own figures come
// from the battery output of the same shell. Pure: the readings, the
// histories and the settings in, checklist items out.
import type { CheckItem } from '../../platforms/doctor.js';
import type { DoctorPhone, FeatureDoctor } from '../context.js';
import { dayOf } from './forecast.js';
import { withFigures, type DaySample } from './history.js';
import { judgeWear, type WearSettings } from './judge.js';
import { leftovers } from './leftovers.js';

/** The doctor's wear lines: each phone's wear read in its one shell, its battery output for Samsung's figures, judged with the daemon's histories (by udid, an Android phone's serial over USB). */
export function wearDoctor(settings: WearSettings, histories: () => ReadonlyMap<string, readonly DaySample[]>, nowMs: () => number): FeatureDoctor {
  return { reads: ['battery', 'wear'], phones: (phones) => wearItems(phones, settings, histories(), nowMs()) };
}

/** A phone as wear's lines read it: its wear sections, and its battery output where Samsung prints its own figures. */
export type PhoneWear = Pick<DoctorPhone, 'serial' | 'wear'> & { battery?: { cycleCount?: number; healthPercent?: number } };
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
  for (const { serial, wear, battery: samsung } of phones) {
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
