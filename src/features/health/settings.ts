// Health's settings: the rules' limits and which problems make a device
// UNAVAILABLE. Composed into the one schema by src/config/schema.ts.
import type { Field } from '../../config/field.js';
export const healthSettings = {
  'health.batteryHotCelsius': { type: 'integer', default: 45, min: 20, max: 100, help: 'a battery at or above this temperature (°C) is hot' },
  'health.batteryHotHysteresisCelsius': {
    type: 'integer',
    default: 3,
    min: 0,
    max: 30,
    help: 'a hot battery counts as cooled only this many °C below the limit (42 °C by default)',
  },
  'health.batteryHotUnavailable': {
    type: 'boolean',
    default: true,
    help: 'a hot battery makes the device `UNAVAILABLE`, so the cloud sends it no work until it has cooled',
  },
  'health.batteryLowPercent': { type: 'integer', default: 15, min: 0, max: 100, help: 'a battery at or below this level (%) while not charging is low' },
  'health.batteryLowUnavailable': { type: 'boolean', default: false, help: 'a low battery makes the device `UNAVAILABLE`' },
  'health.storageMinFreeMiB': { type: 'integer', default: 1024, min: 0, max: 1048576, help: 'less free storage than this (MiB) is nearly full' },
  'health.storageMinFreePercent': { type: 'integer', default: 5, min: 0, max: 100, help: 'less free storage than this share of the total (%) is nearly full' },
  'health.storageFullUnavailable': { type: 'boolean', default: false, help: 'nearly full storage makes the device `UNAVAILABLE`' },
  'health.shellFailures': {
    type: 'integer',
    default: 3,
    min: 0,
    max: 1000,
    help: 'inventories failed or past their deadline in a row before the shell counts as unresponsive; 0 turns the rule off',
  },
  'health.shellUnresponsiveUnavailable': {
    type: 'boolean',
    default: false,
    help: "an unresponsive shell makes the device `UNAVAILABLE` (the record already carries the collector's advice either way)",
  },
  'health.batteryHealthUnavailable': {
    type: 'boolean',
    default: false,
    help: 'a battery whose health the phone reports as anything but good (`OVERHEAT`, `DEAD`, `OVER_VOLTAGE`, `COLD`, `UNSPECIFIED_FAILURE`) makes the device `UNAVAILABLE`',
  },
  'health.batteryHeldFullSeconds': {
    type: 'integer',
    default: 86400,
    min: 0,
    max: 31536000,
    help: 'a battery full (100 % or status `FULL`) on external power without a break for longer than this (s) is held full; 0 turns the rule off',
  },
  'health.chargingVoltageMaxMillivolts': {
    type: 'integer',
    default: 6000,
    min: 0,
    max: 48000,
    help: 'a plugged charger offering more than this (mV; `Max charging voltage` of `dumpsys battery`: 5 V on a plain USB port, 9 V and more when fast charging) is flagged; 0 turns the rule off',
  },
} as const satisfies Record<string, Field>;
