// Parses `dumpsys battery` (BatteryService.dumpInternal). The AOSP block is
// "  key: value" lines; vendors append their own lines (Samsung prints
// "charge counter" twice, LLB dates, flags at column 0), and Android 14 adds
// "Charging state" and "Capacity level". Only the first occurrence of each
// AOSP key counts.

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

const LINE = /^\s+([A-Za-z][A-Za-z ]*?):\s*(.*?)\s*$/;

function fields(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const [, key = '', value = ''] = match;
    if (!map.has(key)) map.set(key, value);
  }
  return map;
}

function int(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?\d+$/.test(value)) return undefined;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : undefined;
}

function bool(value: string | undefined): boolean | undefined {
  return value === 'true' ? true : value === 'false' ? false : undefined;
}

// Most devices print millivolts; some kernels hand microvolts through, a few
// old ones whole volts. A Li-ion cell sits between 1 and 5 V: a figure that
// fits no unit (dev boards with a dummy battery print "voltage: 13") is left
// out rather than guessed.
function millivolts(raw: number | undefined): number | undefined {
  if (raw === undefined || raw <= 0) return undefined;
  if (raw >= 1_000_000 && raw <= 5_000_000) return Math.round(raw / 1000);
  if (raw >= 1000 && raw <= 5000) return raw;
  if (raw >= 1 && raw <= 5) return raw * 1000;
  return undefined;
}

// Half away from zero, so -4.5 °C reads -5 like 4.5 reads 5.
function roundHalfAway(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value)) || 0;
}

export function parseBattery(text: string): BatteryReading {
  const map = fields(text);
  const level = int(map.get('level'));
  const scale = int(map.get('scale')) ?? 100;
  const tenths = int(map.get('temperature'));
  const technology = map.get('technology');
  const reading: BatteryReading = {
    status: STATUS[map.get('status') ?? ''],
    health: HEALTH[map.get('health') ?? ''],
    technology: technology ? technology : undefined,
    percentage:
      level !== undefined && scale > 0 && level >= 0 ? String(Math.min(100, Math.round((level * 100) / scale))) : undefined,
    temperature: tenths === undefined ? undefined : roundHalfAway(tenths / 10),
    voltage: millivolts(int(map.get('voltage'))),
    present: bool(map.get('present')),
    acPowered: bool(map.get('AC powered')),
    usbPowered: bool(map.get('USB powered')),
    wirelessPowered: bool(map.get('Wireless powered')),
  };
  // voltage 0 and temperature 0 together are what a battery service prints
  // with nothing to read (emulators, dummy batteries): 0 °C is then not a
  // reading. A battery that is not present has no figures at all; what the
  // service still prints for it (level 100, health) is made up.
  if (int(map.get('voltage')) === 0 && tenths === 0) delete reading.temperature;
  if (reading.present === false) {
    for (const key of ['percentage', 'temperature', 'voltage', 'health', 'technology'] as const) delete reading[key];
  }
  for (const key of Object.keys(reading) as (keyof BatteryReading)[]) {
    if (reading[key] === undefined) delete reading[key];
  }
  return reading;
}

/**
 * Whether healthd fixes the level and temperature it reports. With
 * `ro.boot.fake_battery` set to a number other than 0 (healthd reads it with
 * strtol: "1" and "42" count, "0" and "true" do not), BatteryMonitor.cpp
 * answers a level of 42 and 42.4 °C whatever the hardware, even where a
 * battery supply is present. Boards without a battery set it (Amlogic set-top
 * boxes, ODROID images, Anbox, Bliss OS), and with it those two figures are
 * not readings.
 */
export function fixedByHealthd(fakeBatteryProp: string | undefined): boolean {
  const match = /^\s*([+-]?\d+)/.exec(fakeBatteryProp ?? '');
  return match !== null && Number(match[1]) !== 0;
}
