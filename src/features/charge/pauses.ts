import { STATUS_UNAVAILABLE } from '../../cloud/types.js';
import { facetKey, type Facet } from '../../devices/facet.js';
import type { PresenceBound } from '../../devices/presence.js';
import { keyParts, recordKey, type Platform } from '../../devices/record.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { utcText } from '../../util/clock.js';
import type { PortWay } from '../../config/charge-ways.js';

/** A charge pause: the hub port behind a phone switched off on purpose (charge control). */
export interface ChargePause {
  udid: string;
  /** adb's serial when the pause started. */
  serial: string;
  /** How its port is switched (charge.ways): uhubctl, or the operator's command. */
  way: PortWay;
  hub: string;
  port: number;
  /** The level (%) that started it. */
  percent: number;
  /** Monotonic ms when the port was asked to switch off. */
  since: number;
  /** The same, wall clock ms: a reading counts for the pause only when taken after it. */
  sinceWall: number;
  /** Monotonic ms by which the port is switched on again whatever happens. */
  until: number;
  /** The same, wall clock ms, for people and the cloud. */
  untilWall: number;
  /** Set when the pause is over: why, when, whether the port is on again, and until when the phone is waited for. */
  ended?: { why: PauseEnd; at: number; atWall: number; switchedOn: boolean; waitUntil: number; onWall?: number };
  /** Whether the port really cut the phone's power, from the moment it was switched off (features/charge/power-check.ts). */
  cut?: CutCheck;
}

/** The check of one pause's power cut (features/charge/power-check.ts decides it). */
export interface CutCheck {
  /** Wall ms when the port was switched off: the readings' times are the phone's wall times. */
  offAtWall: number;
  /** Readings taken after the switch that showed the phone on power. */
  onPower: number;
  /** Wall ms of the last reading counted (the switch at first), so that a reading counts once however often it is looked at. */
  lastReadingAt?: number;
  /** Set once decided: the power was cut, or the port keeps it. */
  verdict?: 'cut' | 'not-cut';
}

/** Why a pause ended: booked, the longest pause up, the low mark reached, or power not cut on the port. */
export type PauseEnd = 'booked' | 'max_time' | 'low_mark' | 'power_not_cut';

/** What charge control keeps of one phone, by adb serial. */
export interface ChargeEntry {
  pause?: ChargePause;
  /** Switches that failed in a row, and when the next may be tried (monotonic ms). */
  failures: number;
  retryAt?: number;
}

/** Charge control's facet, kept by stable key past its records: a paused phone is off adb with no record, yet reported. */
const CHARGE = facetKey<ChargeEntry>('charge', 'device');

/**
 * Charge pauses, by the serial of the platform's phone. Charge control writes them; the report, rows, recovery and
 * metrics read. A phone whose hub port is off on purpose drops off adb, and an absent device would go out UNPLUGGED:
 * while charge control keeps its pause, the phone is owed in the presence ledger, UNAVAILABLE, with why and until when.
 * Every write of a pause writes its entry too, so the ledger says what the facet says.
 */
export class ChargePauses {
  private readonly facet: Facet<ChargeEntry>;

  constructor(
    private readonly registry: Pick<DeviceRegistry, 'facet' | 'presence'>,
    private readonly platform: Platform,
  ) {
    this.facet = registry.facet(CHARGE);
  }

  of(serial: string): Readonly<ChargeEntry> | undefined {
    return this.facet.get(recordKey(this.platform, serial));
  }

  set(serial: string, entry: ChargeEntry) {
    const key = recordKey(this.platform, serial);
    this.facet.set(key, entry);
    // Owed while off adb (the report carries it with its last inventory): UNAVAILABLE, with why and until when.
    this.registry.presence.owe(
      { kind: 'charge-paused', scope: key },
      entry.pause ? [{ udid: entry.pause.udid, key, says: { status: STATUS_UNAVAILABLE }, why: messageOf(entry.pause) }] : [],
      WHILE_PAUSED,
    );
  }

  forget(serial: string) {
    const key = recordKey(this.platform, serial);
    this.facet.delete(key);
    this.registry.presence.end({ kind: 'charge-paused', scope: key });
  }

  /** Every entry with its serial, whatever the platform: what the report applies. */
  entries(): Array<[serial: string, entry: Readonly<ChargeEntry>]> {
    return this.facet.entries().map(([key, entry]) => [keyParts(key).serial, entry]);
  }
}

/** The pause of the phone with this udid, whatever its platform: what its row shows while it is off its source's list. */
export function pauseOfUdid(registry: Pick<DeviceRegistry, 'facet'>, udid: string): Readonly<ChargePause> | undefined {
  return registry
    .facet(CHARGE)
    .entries()
    .find(([, entry]) => entry.pause?.udid === udid)?.[1].pause;
}

/** Whether the phone's port is off on purpose or being switched for a pause (from before its off switch to its on): recovery leaves it. */
export function portHeldOff(charge: Pick<ChargeEntry, 'pause'>) {
  return charge.pause !== undefined && charge.pause.ended?.switchedOn !== true;
}

/** Charge control ends the pause itself (booked, its longest time, the phone back or awaited long enough): its bound is the pause's own. */
const WHILE_PAUSED: PresenceBound = { while: 'charge control keeps the pause (its port off, or the phone awaited back)' };

/** What the phone's message says of its pause. */
export function messageOf(pause: Readonly<ChargePause>) {
  const place = `hub ${pause.hub} port ${pause.port}`;
  const { ended } = pause;
  if (!ended)
    return (
      `charge paused to spare the battery: ${place} switched off at ${pause.percent} %; ` +
      `on again by ${utcText(pause.untilWall)} at the latest, or as soon as the cloud books it`
    );
  const why = ended.why.replace(/_/g, ' ');
  if (!ended.switchedOn) return `charge pause over (${why}) but ${place} is not on again yet; the agent keeps trying`;
  return `charge pause over (${why}): ${place} on again since ${utcText(ended.atWall)}; waiting for the phone to come back on adb`;
}
