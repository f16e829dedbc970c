// Parses `dumpsys battery` (BatteryService.dumpInternal): AOSP's "  key: value" lines, of which only the first of each
// key counts, as vendors append their own (Samsung prints "charge counter" twice). Only the keys of BATTERY_KEYS are
// read: the probe's filter keeps those lines alone on the phone (Samsung's whole dump is 11 KB).
//
// Wear figures: AOSP prints none up to Android 16. Samsung prints mSavedBatteryAsoc (state of health, %),
// mSavedBatteryBsoh (the same on another scale, newer One UI) and mSavedBatteryUsage (charge discharged since first
// use, in % of a full charge). Sources in test/.../fixtures/SOURCES.md.
import { dropUndefined } from '../../../../util/drop-undefined.js';

export interface BatteryReading {
  /** CHARGING, DISCHARGING, NOT_CHARGING, FULL or UNKNOWN (BatteryManager.BATTERY_STATUS_*). */
  status?: string;
  /** GOOD, OVERHEAT, DEAD, OVER_VOLTAGE, UNSPECIFIED_FAILURE, COLD or UNKNOWN. */
  health?: string;
  technology?: string;
  /** level * 100 / scale, rounded, as a string (the cloud's type). */
  percentage?: string;
  /** Whole degrees Celsius, rounded; dumpsys prints tenths of a degree. */
  temperature?: number;
  /** Millivolts. */
  voltage?: number;
  present?: boolean;
  acPowered?: boolean;
  usbPowered?: boolean;
  wirelessPowered?: boolean;
  dockPowered?: boolean;
  /** The most the charger offers, in mV (printed in µV: 5 V on a plain port, 9 V and more fast); absent at 0 (Samsung). */
  maxChargingVoltage?: number;
  /** Full charge cycles: the charge discharged over the battery's life in full charges (Samsung only). */
  cycleCount?: number;
  /** State of health: what the battery holds now, in % of its design capacity (Samsung only). */
  healthPercent?: number;
}

const STATUS: Record<string, string> = {
  '1': 'UNKNOWN',
  '2': 'CHARGING',
  '3': 'DISCHARGING',
  '4': 'NOT_CHARGING',
  '5': 'FULL',
};

const HEALTH: Record<string, string> = {
  '1': 'UNKNOWN',
  '2': 'GOOD',
  '3': 'OVERHEAT',
  '4': 'DEAD',
  '5': 'OVER_VOLTAGE',
  '6': 'UNSPECIFIED_FAILURE',
  '7': 'COLD',
};

/** Every key the parser reads: a line of another key changes no reading. */
export const BATTERY_KEYS: ReadonlySet<string> = new Set([
  'AC powered',
  'USB powered',
  'Wireless powered',
  'Dock powered',
  'Max charging voltage',
  'status',
  'health',
  'present',
  'level',
  'scale',
  'voltage',
  'temperature',
  'technology',
  'mSavedBatteryAsoc',
  'mSavedBatteryBsoh',
  'mSavedBatteryUsage',
]);

// Indented by spaces or tabs only, as the filter on the phone strips them (a trailing \r goes with the value's blanks).
const LINE = /^[ \t]+([A-Za-z][A-Za-z ]*?):\s*(.*?)\s*$/;

function fields(text: string) {
  const map = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [, key = '', value = ''] = LINE.exec(line) ?? [];
    if (BATTERY_KEYS.has(key) && !map.has(key)) map.set(key, value);
  }
  return map;
}

function int(value: string | undefined) {
  if (!/^-?\d+$/.test(value ?? '')) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

function bool(value: string | undefined) {
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

// Most devices print millivolts, some kernels microvolts, a few old ones volts. A Li-ion cell sits between 1 and 5 V: a
// figure no unit fits (a dummy battery's "voltage: 13") is left out rather than guessed.
function millivolts(raw: number | undefined) {
  if (raw === undefined || raw <= 0) return undefined;
  if (raw >= 1_000_000 && raw <= 5_000_000) return Math.round(raw / 1000);
  if (raw >= 1000 && raw <= 5000) return raw;
  if (raw >= 1 && raw <= 5) return raw * 1000;
}

// healthd prints the charger's voltage_max; beyond what USB Power Delivery offers (48 V) it is no reading.
function chargerMillivolts(microvolts: number | undefined) {
  if (microvolts === undefined || microvolts < 1_000_000 || microvolts > 48_000_000) return undefined;
  return Math.round(microvolts / 1000);
}

// Newer One UI prints the figure in brackets ("[86]"), older without; BSOH may carry decimals ("100.00").
function samsungNumber(value: string | undefined) {
  const match = /^\[?\s*(\d+(?:\.\d+)?)\s*\]?$/.exec(value ?? '');
  return match ? Number(match[1]) : undefined;
}

function percentOf(value: number | undefined) {
  return value !== undefined && value > 0 && value <= 100 ? Math.floor(value) : undefined;
}

// Half away from zero, so -4.5 °C reads -5 like 4.5 reads 5.
function roundHalfAway(value: number) {
  return Math.sign(value) * Math.round(Math.abs(value)) || 0;
}

export function parseBattery(text: string) {
  const map = fields(text);
  const level = int(map.get('level'));
  const scale = int(map.get('scale')) ?? 100;
  const tenths = int(map.get('temperature'));
  const reading: BatteryReading = {
    status: STATUS[map.get('status') ?? ''],
    health: HEALTH[map.get('health') ?? ''],
    technology: map.get('technology') || undefined,
    percentage: level !== undefined && scale > 0 && level >= 0 ? String(Math.min(100, Math.round((level * 100) / scale))) : undefined,
    temperature: tenths === undefined ? undefined : roundHalfAway(tenths / 10),
    voltage: millivolts(int(map.get('voltage'))),
    present: bool(map.get('present')),
    acPowered: bool(map.get('AC powered')),
    usbPowered: bool(map.get('USB powered')),
    wirelessPowered: bool(map.get('Wireless powered')),
    dockPowered: bool(map.get('Dock powered')),
    maxChargingVoltage: chargerMillivolts(int(map.get('Max charging voltage'))),
    cycleCount: cyclesOf(samsungNumber(map.get('mSavedBatteryUsage'))),
    // ASOC first: it is what Samsung's own battery check shows; BSOH only where ASOC is missing.
    healthPercent: percentOf(samsungNumber(map.get('mSavedBatteryAsoc'))) ?? percentOf(samsungNumber(map.get('mSavedBatteryBsoh'))),
  };
  // voltage 0 and temperature 0 together are a battery service with nothing to read (emulators): 0 °C is no reading. A
  // battery not present has no figures at all: what is still printed for it is made up.
  if (int(map.get('voltage')) === 0 && tenths === 0) delete reading.temperature;
  if (reading.present === false) {
    for (const key of ['percentage', 'temperature', 'voltage', 'health', 'technology', 'cycleCount', 'healthPercent'] as const) delete reading[key];
  }
  return dropUndefined(reading);
}

// Discharged charge in % of a full charge: every 100 is one full cycle.
function cyclesOf(percentDischarged: number | undefined) {
  return percentDischarged === undefined ? undefined : Math.floor(percentDischarged / 100);
}

/** Whether a charger, cable or dock powers the phone; undefined when the service prints none of the four lines. */
export function onExternalPower(reading: BatteryReading) {
  const flags = [reading.acPowered, reading.usbPowered, reading.wirelessPowered, reading.dockPowered].filter((f) => f !== undefined);
  return flags.length ? flags.some(Boolean) : undefined;
}

/**
 * Whether healthd fixes level and temperature: with `ro.boot.fake_battery` a number other than 0 (read by strtol),
 * BatteryMonitor.cpp answers 42 and 42.4 °C whatever the hardware. Boards without a battery set it.
 */
export function fixedByHealthd(fakeBatteryProp: string | undefined) {
  const match = /^\s*([+-]?\d+)/.exec(fakeBatteryProp ?? '');
  return match !== null && Number(match[1]) !== 0;
}
