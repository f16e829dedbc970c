// Device health rules: pure, thresholds from the settings (`health.*`). The
// caller keeps each device's active problems and passes them back, for the
// hot-battery hysteresis.

/** The `health.*` settings (config/default.json holds the defaults). */
export interface HealthSettings {
  batteryHotCelsius: number;
  /** A hot battery counts as cooled only this far below batteryHotCelsius. */
  batteryHotHysteresisCelsius: number;
  batteryHotUnavailable: boolean;
  batteryLowPercent: number;
  batteryLowUnavailable: boolean;
  storageMinFreeMiB: number;
  storageMinFreePercent: number;
  storageFullUnavailable: boolean;
  /** Consecutive inventories that missed their deadline or failed. */
  shellFailures: number;
  shellUnresponsiveUnavailable: boolean;
}

export const PROBLEMS = ['battery_hot', 'battery_low', 'storage_full', 'shell_unresponsive'] as const;
export type Problem = (typeof PROBLEMS)[number];

export interface HealthInput {
  temperatureCelsius?: number;
  batteryPercent?: number;
  /** undefined when the battery does not say (no battery, status UNKNOWN). */
  charging?: boolean;
  storageFreeBytes?: number;
  storageTotalBytes?: number;
  consecutiveShellFailures: number;
}

export interface Finding {
  problem: Problem;
  message: string;
  /** The rule asks for status UNAVAILABLE, so that the cloud sends the device no work. */
  unavailable: boolean;
}

const MIB = 1024 ** 2;

export function evaluate(input: HealthInput, previous: ReadonlySet<Problem>, s: HealthSettings): Finding[] {
  const out: Finding[] = [];
  const t = input.temperatureCelsius;
  if (t !== undefined) {
    const limit = previous.has('battery_hot') ? s.batteryHotCelsius - s.batteryHotHysteresisCelsius : s.batteryHotCelsius;
    const hot = previous.has('battery_hot') ? t > limit : t >= limit;
    if (hot) {
      const back = s.batteryHotCelsius - s.batteryHotHysteresisCelsius;
      out.push({
        problem: 'battery_hot',
        unavailable: s.batteryHotUnavailable,
        message:
          `battery at ${t} °C (limit ${s.batteryHotCelsius} °C): unplug the phone or give it air, and check the battery for swelling` +
          (s.batteryHotUnavailable ? `; it takes no work until it is at or below ${back} °C` : ''),
      });
    }
  }
  if (input.batteryPercent !== undefined && input.charging === false && input.batteryPercent <= s.batteryLowPercent) {
    out.push({
      problem: 'battery_low',
      unavailable: s.batteryLowUnavailable,
      message: `battery at ${input.batteryPercent} % and not charging: check the USB cable and that the hub's power supply is on`,
    });
  }
  const free = input.storageFreeBytes;
  const total = input.storageTotalBytes;
  if (free !== undefined && (free < s.storageMinFreeMiB * MIB || (total !== undefined && total > 0 && (free / total) * 100 < s.storageMinFreePercent))) {
    out.push({
      problem: 'storage_full',
      unavailable: s.storageFullUnavailable,
      message: `storage nearly full: ${Math.floor(free / MIB)} MiB free${total ? ` of ${Math.round(total / 1024 ** 3)} GiB` : ''}; uninstall test apps or clear /sdcard`,
    });
  }
  if (s.shellFailures > 0 && input.consecutiveShellFailures >= s.shellFailures) {
    out.push({
      problem: 'shell_unresponsive',
      unavailable: s.shellUnresponsiveUnavailable,
      message: `adb shell failed or missed its deadline ${input.consecutiveShellFailures} times in a row: replug or reboot the phone`,
    });
  }
  return out;
}
