// Charge control's settings: the ways (the hub's port, the operator's command, Samsung's own protection) and the marks.
// Composed into the one schema by src/config/schema.ts.
import type { Field } from '../../config/field.js';
import { checkChargeWays, checkPortCommand } from '../../config/charge-ways.js';
export const chargeSettings = {
  'charge.ways': {
    type: 'string[]',
    default: [],
    check: checkChargeWays,
    format: 'ID=WAY or model:PATTERN=WAY list',
    help:
      'charge control, off unless listed: `uhubctl` pauses charging by switching off the hub port behind the phone (`hubPorts`, with `recovery.powerCycleCommand`) at `highPercent`, ' +
      '`command` does the same with `charge.command`, ' +
      'and on again at `lowPercent` or after `maxPauseSeconds`, only while the cloud says the phone is not booked; ' +
      "`samsung` turns on a Samsung's own battery protection (`settings put global protect_battery 1`, a cap at 85 %) where it is off, only while the cloud says the phone is not booked, " +
      "reads it back and says on the device when it did not take (removing the entry leaves the setting on the phone); ID is a udid or adb serial (one that is one device's serial and another's udid applies to neither, not even their model's entry), PATTERN a model (`*` for any text, " +
      "e.g. `model:SM-S9*=uhubctl`), a phone's own entry first, then the first model that matches; `off` names an exception. See [charge control](../operations/battery.md#charge-control)",
  },
  'charge.command': {
    type: 'string',
    default: '',
    check: checkPortCommand,
    format: 'command with {hub} {port} {action}, split on spaces',
    unset: 'none: no phone can have the `command` way',
    help:
      "the way `command`: the operator's own tool for a hub that uhubctl does not drive, each word with `{hub}`, `{port}` and `{action}` (`off`, `on`) put in, run without a shell, e.g. " +
      '`/usr/local/bin/hub-power {hub} {port} {action}`; needed by a `command` entry of `charge.ways`',
  },
  'charge.highPercent': { type: 'integer', default: 80, min: 50, max: 100, help: 'a charge pause starts when the battery is at or above this level (%)' },
  'charge.lowPercent': {
    type: 'integer',
    default: 40,
    min: 5,
    max: 95,
    help: 'a pause ends when a reading shows the battery at or below this level (%), below `highPercent`; a phone whose port is off rarely gives one, so `maxPauseSeconds` usually ends it',
  },
  'charge.maxPauseSeconds': {
    type: 'integer',
    default: 7200,
    min: 5,
    max: 86400,
    help: 'the port is switched on again this long after a pause started, whatever the battery or the cloud says',
  },
} as const satisfies Record<string, Field>;
