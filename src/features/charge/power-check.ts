// Whether a hub port really cuts a phone's power, decided without I/O from the phone's readings: some hubs say a port
// is off and keep power on it (mvp/uhubctl #617, #319). So after the off switch the phone must be seen off power (or
// gone) within a bound, and after the on switch on power again; only a reading taken after the switch counts.

import { chargingOf } from '../../cloud/device-facts.js';
import type { Battery, BatteryDetail } from '../../cloud/types.js';
import type { CutCheck } from './pauses.js';

/** What one reading of the phone says of its power, or that it is gone from its port (off its source's list). */
export type PowerSeen = 'on-power' | 'off-power' | 'gone' | 'unknown';

/**
 * What a reading says of the phone's power: its charger lines (`AC`/`USB`/`Wireless`/`Dock powered`), else a status only
 * a plugged (CHARGING, FULL) or unplugged (DISCHARGING) battery has. NOT_CHARGING says nothing: a capped phone says it.
 */
export function powerOf(reading: { battery?: Battery; batteryDetail?: BatteryDetail } | undefined): PowerSeen {
  const external = reading?.batteryDetail?.externalPower;
  if (external !== undefined) return external ? 'on-power' : 'off-power';
  const status = reading?.battery?.status;
  if (status === 'DISCHARGING') return 'off-power';
  return chargingOf(status) === true ? 'on-power' : 'unknown';
}

export interface PowerBounds {
  /** The port is named as not cutting power only once this long has passed since the off switch. */
  cutWithinMs: number;
  /** ... and this many readings after the switch all showed the phone on power. */
  readings: number;
}

export type CutVerdict = { kind: 'wait' } | { kind: 'cut'; seen: 'off-power' | 'gone' } | { kind: 'not-cut'; readings: number; afterMs: number };

/** A new check, from the moment the off switch worked. */
export function cutCheck(offAtWall: number): CutCheck {
  return { offAtWall, onPower: 0, lastReadingAt: offAtWall };
}

/**
 * One look at a paused phone; a check with a verdict stays. Off power or gone is a cut; a port keeps power only on
 * evidence: `readings` readings on power after the switch, the last taken at least `cutWithinMs` after it (by when it
 * was taken, not looked at). No reading is no evidence: the pause's own bounds end it. `reading`: the phone's latest
 * and when it was taken (wall ms), or gone: off its source's list.
 */
export function checkCut(
  check: CutCheck,
  reading: { at: number; seen: PowerSeen } | 'gone' | undefined,
  b: PowerBounds,
): { check: CutCheck; verdict: CutVerdict } {
  if (check.verdict) return { check, verdict: { kind: 'wait' } };
  if (reading === 'gone') return { check: { ...check, verdict: 'cut' }, verdict: { kind: 'cut', seen: 'gone' } };
  // Only a reading newer than the switch and than the last one counted.
  if (reading === undefined || (check.lastReadingAt !== undefined && reading.at <= check.lastReadingAt)) return { check, verdict: { kind: 'wait' } };
  const next: CutCheck = { ...check, lastReadingAt: reading.at };
  if (reading.seen === 'off-power') return { check: { ...next, verdict: 'cut' }, verdict: { kind: 'cut', seen: 'off-power' } };
  if (reading.seen !== 'on-power') return { check: next, verdict: { kind: 'wait' } };
  const onPower = check.onPower + 1;
  const afterMs = reading.at - check.offAtWall;
  if (onPower >= b.readings && afterMs >= b.cutWithinMs) {
    return { check: { ...next, onPower, verdict: 'not-cut' }, verdict: { kind: 'not-cut', readings: onPower, afterMs } };
  }
  return { check: { ...next, onPower }, verdict: { kind: 'wait' } };
}

export interface BackLook {
  /** Monotonic ms. */
  now: number;
  /** Monotonic ms by which the phone must show power again (the pause's wait for it to come back). */
  until: number;
  /** What the phone's latest reading since the port went on says, or undefined: none yet (not back on adb, not answered). */
  seen: PowerSeen | undefined;
}

/** After the port is on again the phone must be seen on power by `until`; an off-power reading may be early, so it waits. */
export type BackVerdict = 'charging' | 'wait' | 'no-evidence' | 'not-charging' | 'not-back';

export function checkBack(look: BackLook): BackVerdict {
  if (look.seen === 'on-power') return 'charging';
  if (look.seen === 'unknown') return 'no-evidence';
  if (look.now < look.until) return 'wait';
  return look.seen === 'off-power' ? 'not-charging' : 'not-back';
}
