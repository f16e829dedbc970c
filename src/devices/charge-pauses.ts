import type { DeviceInfo } from '../cloud/types.js';

/** A charge pause: the hub port behind a phone switched off on purpose (recovery/charge.ts). */
export interface ChargePause {
  udid: string;
  /** adb's serial when the pause started. */
  serial: string;
  /** How its port is switched (charge.ways): uhubctl, or the operator's command. */
  way: 'uhubctl' | 'command';
  hub: string;
  port: number;
  /** The phone's last inventory before its port went off: the report carries it while the phone is off adb. */
  info: DeviceInfo;
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
  /**
   * Set when the pause is over: why, when (monotonic and wall ms), whether
   * the port is on again, and until when the phone is waited for before its
   * absence means it is gone.
   */
  ended?: { why: PauseEnd; at: number; atWall: number; switchedOn: boolean; waitUntil: number };
}

/** Why a pause ended: the cloud booked the phone, the longest pause was up, or a reading showed the low mark. */
export type PauseEnd = 'booked' | 'max_time' | 'low_mark';

/** What charge control keeps of one phone, by adb serial. */
export interface ChargeEntry {
  pause?: ChargePause;
  /** A port switch in flight. */
  switching?: 'off' | 'on';
  /** Switches that failed in a row, and when the next may be tried (monotonic ms). */
  failures: number;
  retryAt?: number;
}

/**
 * Charge pauses, by adb serial. They live in the registry beside the
 * connection records because they outlive them: while its port is off the
 * phone is off adb's list and has no record, yet it must be reported as
 * paused (never UNPLUGGED) and its port switched on again in time. Charge
 * control writes it; the reporter, the rows and the metrics read it.
 */
export class ChargePauses {
  private readonly bySerial = new Map<string, ChargeEntry>();

  of(serial: string): Readonly<ChargeEntry> | undefined {
    return this.bySerial.get(serial);
  }

  set(serial: string, entry: ChargeEntry): void {
    this.bySerial.set(serial, entry);
  }

  forget(serial: string): void {
    this.bySerial.delete(serial);
  }

  /** Every entry with its serial. */
  entries(): Array<[serial: string, entry: Readonly<ChargeEntry>]> {
    return [...this.bySerial];
  }

  /** The pause of the phone with this udid, running or waiting for the phone to come back. */
  pauseOf(udid: string): Readonly<ChargePause> | undefined {
    for (const entry of this.bySerial.values()) if (entry.pause?.udid === udid) return entry.pause;
    return undefined;
  }
}
