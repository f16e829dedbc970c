// Device health rules: pure, thresholds from the settings (`health.*`). The caller keeps each device's active problems
// and passes them back, for the hot-battery hysteresis. A battery's wear (cycles, capacity against design) is the wear
// feature's: health judges what holds now.
import type { Settings } from '../../config/schema.js';

/** The `health.*` settings (their defaults: settings.ts, and host-heat's). */
export type HealthSettings = Settings['health'];

export const PROBLEMS = [
  'battery_hot',
  'battery_low',
  'battery_unhealthy',
  'battery_held_full',
  'charging_voltage_high',
  'storage_full',
  'shell_unresponsive',
] as const;
export type Problem = (typeof PROBLEMS)[number];

export interface HealthInput {
  temperatureCelsius?: number;
  batteryPercent?: number;
  /** undefined when the battery does not say (no battery, status UNKNOWN). */
  charging?: boolean;
  storageFreeBytes?: number;
  storageTotalBytes?: number;
  consecutiveShellFailures: number;
  /** Reached over the network only (adb over TCP): no USB cable or hub of the host feeds it. */
  overNetwork?: boolean;
  /** The battery's health as the phone names it (BatteryManager: GOOD, OVERHEAT, DEAD, OVER_VOLTAGE, UNSPECIFIED_FAILURE, COLD, UNKNOWN). */
  batteryHealth?: string;
  /** How long the battery has been full on external power without a break (s); undefined when it is not. */
  heldFullSeconds?: number;
  /** The most the plugged charger offers (mV); undefined when unplugged or not reported. */
  chargerMillivolts?: number;
}

export interface Finding {
  problem: Problem;
  message: string;
  /** The rule asks for status UNAVAILABLE, so that the cloud sends the device no work. */
  unavailable: boolean;
}

const MIB = 1024 ** 2;

/** Whether a battery at `t` °C is hot: from batteryHotCelsius up, and until it falls the hysteresis below it; host-heat reads it too. */
export function isHot(t: number, wasHot: boolean, s: Pick<HealthSettings, 'batteryHotCelsius' | 'batteryHotHysteresisCelsius'>) {
  return wasHot ? t > s.batteryHotCelsius - s.batteryHotHysteresisCelsius : t >= s.batteryHotCelsius;
}

export function evaluate(input: HealthInput, previous: ReadonlySet<Problem>, s: HealthSettings) {
  const out: Finding[] = [];
  const t = input.temperatureCelsius;
  if (t !== undefined) {
    if (isHot(t, previous.has('battery_hot'), s)) {
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
      // A phone reached over the network is not fed by the host's USB: the cable and hub advice would send someone to the wrong place.
      message: input.overNetwork
        ? `battery at ${input.batteryPercent} % and not charging: it is reached over the network, so no USB cable or hub of this host feeds it; plug it into a charger`
        : `battery at ${input.batteryPercent} % and not charging: check the USB cable and that the hub's power supply is on`,
    });
  }
  const health = input.batteryHealth;
  if (health !== undefined && Object.hasOwn(HEALTH_ADVICE, health)) {
    out.push({
      problem: 'battery_unhealthy',
      unavailable: s.batteryHealthUnavailable,
      message: `the phone reports its battery health as ${health}: ${HEALTH_ADVICE[health]}`,
    });
  }
  if (s.batteryHeldFullSeconds > 0 && input.heldFullSeconds !== undefined && input.heldFullSeconds > s.batteryHeldFullSeconds) {
    out.push({
      problem: 'battery_held_full',
      unavailable: false,
      message:
        `battery held full on external power for ${duration(input.heldFullSeconds)} (limit ${duration(s.batteryHeldFullSeconds)}): ` +
        "a battery kept at 100 % wears and can swell; let it run down now and then, or turn on the phone's battery protection",
    });
  }
  if (s.chargingVoltageMaxMillivolts > 0 && input.chargerMillivolts !== undefined && input.chargerMillivolts > s.chargingVoltageMaxMillivolts) {
    out.push({
      problem: 'charging_voltage_high',
      unavailable: false,
      message:
        `the charger offers ${volts(input.chargerMillivolts)} (limit ${volts(s.chargingVoltageMaxMillivolts)}): ` +
        'fast charging heats a battery that stays on power; plug the phone into a 5 V port or turn off fast charging on it',
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

// What to do about each health a phone reports other than GOOD and UNKNOWN (BatteryManager.BATTERY_HEALTH_*; UNKNOWN is
// what batteryless boards say).
const HEALTH_ADVICE: Record<string, string> = {
  OVERHEAT: 'unplug it and give it air, and check the battery for swelling',
  DEAD: 'replace the battery or retire the phone',
  OVER_VOLTAGE: 'move it to another hub port or charger; replace the battery if it stays',
  COLD: 'it will not charge until it is warmer: move it somewhere warmer',
  UNSPECIFIED_FAILURE: 'check the battery for swelling and replace it',
};

function duration(seconds: number) {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

function volts(millivolts: number) {
  return `${(millivolts / 1000).toFixed(1)} V`;
}
