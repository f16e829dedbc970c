// Wear's settings: the limits each figure is judged against, how far ahead a
// forecast is named, and the lab's baseline of packages. Composed into the one
// schema by src/config/schema.ts. The battery's two figures were health's
// until issue 64: their old keys and variables still read, with a warning
// (`formerKey`, which the loader follows).
import type { Field } from '../../config/field.js';
export const wearSettings = {
  'wear.batteryMinHealthPercent': {
    type: 'integer',
    default: 80,
    formerKey: 'health.batteryMinHealthPercent',
    min: 0,
    max: 100,
    help: "a battery that holds less than this share (%) of its design capacity needs replacing, and a phone whose battery fades toward it is named `wear.noticeDays` ahead, where the phone tells its capacity (sysfs, the `tradeinmode` report, Samsung, an iPhone's diagnostics relay); 0 turns the figure off",
  },
  'wear.batteryMaxCycles': {
    type: 'integer',
    default: 800,
    formerKey: 'health.batteryMaxCycles',
    min: 0,
    max: 100000,
    help: 'a battery past this many full charge cycles is worn (most phones are rated 500 to 1000), and one counting toward it is named `wear.noticeDays` ahead, where the phone counts them; 0 turns the figure off',
  },
  'wear.swellingHeldFullHours': {
    type: 'integer',
    default: 72,
    min: 0,
    max: 168,
    help: 'a battery held full while at or above `wear.swellingWarmCelsius` for more than this many hours of the last 7 days is at risk of swelling: check it and let it run down; 0 turns the figure off',
  },
  'wear.swellingWarmCelsius': {
    type: 'integer',
    default: 35,
    min: 20,
    max: 80,
    help: 'the battery temperature (°C) from which time held full counts toward `wear.swellingHeldFullHours`',
  },
  'wear.appIdLimit': {
    type: 'integer',
    default: 19990,
    min: 0,
    max: 19999,
    help: "the largest app id an installed third-party package may have before the phone is about to run out (apps get 10000 to 19999; Google's lab server reboots a phone at 19990); 0 turns the figure off",
  },
  'wear.storageMaxLifeUsedPercent': {
    type: 'integer',
    default: 90,
    min: 0,
    max: 100,
    help: "the share (%) of the flash's rated life a phone may have used, where it tells it (eMMC or UFS life time in sysfs, the `tradeinmode` report); 0 turns the figure off",
  },
  'wear.noticeDays': {
    type: 'integer',
    default: 30,
    min: 0,
    max: 365,
    help: 'a phone whose forecast says a figure passes its limit within this many days is named in its message and by `doctor` (`list` and `device_agent_device_wear_days_left` give every forecast, whatever its date); 0 names there only what is past its limit',
  },
  'wear.baselinePackages': {
    type: 'string[]',
    default: [],
    format: 'package names, `*` for any text',
    help: "the third-party packages a lab's phones are meant to have (e.g. `io.appium.*`); any other one installed is a leftover, counted per phone in `list`, `doctor` and `device_agent_device_leftover_packages`; empty: leftovers are not counted",
  },
  'wear.tmpMaxMiB': {
    type: 'integer',
    default: 1024,
    min: 0,
    max: 1048576,
    help: 'more than this (MiB) in `/data/local/tmp` is files piling up: the phone says so in its message; 0 turns the figure off',
  },
} as const satisfies Record<string, Field>;
