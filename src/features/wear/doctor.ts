// Wear's lines in `doctor`: what each phone tells of its wear, read in the
// doctor's one shell per device with the platform's command
// (ServiceDoctor.wearCommand), judged as the daemon judges it (judge.ts),
// with the daemon's history of the phone where the state directory holds one
// (a forecast needs days; one look has none). Samsung's own figures come
// from the battery output of the same shell. Pure: the readings, the
// histories and the settings in, checklist items out.
import type { CheckItem } from '../../platforms/doctor.js';
import type { Unread } from '../../platforms/wear.js';
import type { DoctorPhone, FeatureDoctor } from '../context.js';
import { dayOf } from './forecast.js';
import { withFigures, type DaySample } from './history.js';
import { judgeWear, type Reason, type WearSettings } from './judge.js';
import { NO_HISTORY_ADVICE, noHistoryWhy } from './identity.js';
import { leftovers } from './leftovers.js';

/** The doctor's wear lines: each phone's wear read in its one shell, its battery output for Samsung's figures, judged with the daemon's history of the udid it gives. */
export function wearDoctor(settings: WearSettings, histories: () => ReadonlyMap<string, readonly DaySample[]>, nowMs: () => number): FeatureDoctor {
  return { reads: ['battery', 'wear'], phones: (phones) => wearItems(phones, settings, histories(), nowMs()) };
}

/** A phone as wear's lines read it: its wear sections, the udid it gives, and its battery output where Samsung prints its own figures. */
export type PhoneWear = Pick<DoctorPhone, 'serial' | 'wear' | 'udid' | 'usb'> &
  Partial<Pick<DoctorPhone, 'state' | 'unread'>> & { battery?: { cycleCount?: number; healthPercent?: number } };

/** The finding's words for each wear reason. */
const REASON_WORDS: Record<Reason, string> = {
  battery_capacity: 'battery capacity',
  battery_cycles: 'battery charge cycles',
  swelling: 'battery swelling risk',
  app_ids: 'app ids near their limit',
  storage_life: 'flash storage life',
  tmp: 'files left in /data/local/tmp',
};
/** What a source is and why it told nothing, in the operator's words. */
const SOURCE_WORDS: Record<string, string> = {
  power_supply: 'battery gauge',
  tradeinmode: 'the trade-in report',
  'tradeinmode battery': "the trade-in report's battery",
  '/data/local/tmp': 'size of /data/local/tmp',
  packages: 'app list',
};
const WHY_WORDS: Record<Unread['why'], string> = {
  absent: 'not on this phone',
  unreadable: 'not readable',
  refused: 'refused',
  garbage: 'answered something else',
};

/**
 * Per phone that told something: a warning per finding within wear.noticeDays (what and when, with what to do), else
 * one ok line with its figures and what it did not tell (unknown is never worn); unread when it told no figure, or its
 * shell no wear part, and why. The history is the daemon's by the udid the phone gives (the store's key; its adb
 * serial is HOST:PORT over TCP), none while another listed phone gives that udid too: then a warning says why it has
 * no forecast.
 */
export function wearItems(phones: readonly PhoneWear[], settings: WearSettings, histories: ReadonlyMap<string, readonly DaySample[]>, nowMs: number) {
  const items: CheckItem[] = [];
  const today = dayOf(nowMs);
  const claims = phones.map((p) => ({ serial: p.serial, udid: p.udid, usb: p.usb, ready: p.state === undefined || p.state === 'device' }));
  for (const { serial, udid, wear, battery: samsung, unread } of phones) {
    const line = (status: CheckItem['status'], finding: string, advice?: string) => items.push({ id: 'phone.wear', phone: serial, status, finding, advice });
    if (!wear) {
      line('unread', unread ?? 'its shell printed no wear part');
      continue;
    }
    const conflict = noHistoryWhy(serial, claims);
    const battery = {
      health: wear.batteries.find((b) => b.healthPercent !== undefined)?.healthPercent ?? samsung?.healthPercent,
      cycles: wear.batteries.find((b) => b.cycleCount !== undefined)?.cycleCount ?? samsung?.cycleCount,
    };
    const kept = udid === undefined || conflict !== undefined ? undefined : histories.get(udid);
    const history = withFigures(kept ?? [], today, { ...battery, lifeUsed: wear.storage?.lifeUsedPercent, appId: wear.apps?.maxAppId });
    const findings = judgeWear(history, { tmpKib: wear.tmp?.kib, preEol: wear.storage?.preEol }, settings, today).filter((f) => f.days <= settings.noticeDays);
    if (conflict) line('warn', `device ${serial}: no wear forecast: ${conflict}`, NO_HISTORY_ADVICE);
    const worn = findings.map((f) => `${REASON_WORDS[f.reason]}${f.days === 0 ? ' now' : ` in about ${f.days} days`}`);
    if (worn.length) line('warn', `device ${serial}: worn: ${worn.join(', ')}`, findings.map((f) => f.message).join('; '));
    const figures = [
      battery.health !== undefined && `battery ${battery.health} % of design`,
      battery.cycles !== undefined && `${battery.cycles} cycles`,
      wear.storage?.lifeUsedPercent !== undefined && `flash ${wear.storage.lifeUsedPercent} % of its life used`,
      wear.apps && `largest app id ${wear.apps.maxAppId}`,
      wear.thirdParty && settings.baselinePackages.length > 0 && `${leftovers(wear.thirdParty, settings.baselinePackages).length} leftover packages`,
      wear.tmp?.kib !== undefined && `${Math.round(wear.tmp.kib / 1024)} MiB in /data/local/tmp`,
    ].filter((x) => typeof x === 'string');
    const untold = wear.unread.map((u) => `${SOURCE_WORDS[u.what] ?? u.what} ${WHY_WORDS[u.why]}${u.detail ? ` (${u.detail})` : ''}`).join(', ');
    if (!figures.length) line('unread', `no figure told${untold && ` (${untold})`}`);
    else if (!findings.length) line('ok', `device ${serial}: wear: ${figures.join(', ')}${untold && `; not told: ${untold}`}`);
  }
  return items;
}
