// Device health rules: pure, thresholds from the settings. The caller keeps
// the returned `active` set per device to fire each problem once and to apply
// the hot-battery hysteresis.

export interface HealthSettings {
  hotCelsius: number;
  hotHysteresisCelsius: number;
  hotSetsUnavailable: boolean;
  lowBatteryPercent: number;
  lowBatterySetsUnavailable: boolean;
  storageMinFreeBytes: number;
  storageMinFreePercent: number;
  storageSetsUnavailable: boolean;
  shellFailures: number;
  shellSetsUnavailable: boolean;
}

export const defaultHealthSettings: HealthSettings = {
  hotCelsius: 45,
  hotHysteresisCelsius: 3,
  hotSetsUnavailable: true,
  lowBatteryPercent: 15,
  lowBatterySetsUnavailable: false,
  storageMinFreeBytes: 1024 ** 3,
  storageMinFreePercent: 5,
  storageSetsUnavailable: false,
  shellFailures: 3,
  shellSetsUnavailable: false,
};

export type Problem = 'battery_hot' | 'battery_low' | 'storage_full' | 'shell_unresponsive';

export interface HealthInput {
  temperatureCelsius?: number;
  batteryPercent?: number;
  charging?: boolean;
  storageFreeBytes?: number;
  storageTotalBytes?: number;
  consecutiveShellFailures: number;
}

export interface Finding {
  problem: Problem;
  message: string;
  unavailable: boolean;
}

export function evaluate(input: HealthInput, previous: ReadonlySet<Problem>, s: HealthSettings): Finding[] {
  const out: Finding[] = [];
  const t = input.temperatureCelsius;
  if (t !== undefined) {
    const hot = previous.has('battery_hot') ? t > s.hotCelsius - s.hotHysteresisCelsius : t >= s.hotCelsius;
    if (hot) out.push({ problem: 'battery_hot', unavailable: s.hotSetsUnavailable, message: `battery at ${t} °C (limit ${s.hotCelsius} °C): unplug the phone or move it somewhere cooler, and check the battery for swelling` });
  }
  if (input.batteryPercent !== undefined && input.charging === false && input.batteryPercent <= s.lowBatteryPercent) {
    out.push({ problem: 'battery_low', unavailable: s.lowBatterySetsUnavailable, message: `battery at ${input.batteryPercent} % and not charging: check the USB cable and hub power` });
  }
  const free = input.storageFreeBytes;
  const total = input.storageTotalBytes;
  if (free !== undefined && (free < s.storageMinFreeBytes || (total && (free / total) * 100 < s.storageMinFreePercent))) {
    out.push({ problem: 'storage_full', unavailable: s.storageSetsUnavailable, message: `only ${Math.round(free / 1024 ** 2)} MiB storage free: uninstall test apps or clear /sdcard` });
  }
  if (input.consecutiveShellFailures >= s.shellFailures) {
    out.push({ problem: 'shell_unresponsive', unavailable: s.shellSetsUnavailable, message: `adb shell missed its deadline ${input.consecutiveShellFailures} times in a row: reconnect or reboot the phone` });
  }
  return out;
}
