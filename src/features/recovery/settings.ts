// Recovery's settings, and the booking gate's bounds every action shares (still under recovery.*, the names operators
// set). Composed into the one schema by src/config/schema.ts.
import type { Field } from '../../config/field.js';
export const recoverySettings = {
  'recovery.reconnectOffline': {
    type: 'boolean',
    default: true,
    help: 'reconnect an offline USB device (`adb reconnect offline`, or `adb -s SERIAL reconnect` when others must not be touched) and an offline one of `networkDevices`; off, an offline phone is never power-cycled either',
  },
  'recovery.offlineCooldownSeconds': { type: 'integer', default: 60, min: 10, max: 86400, help: 'at most one `adb reconnect offline` in this many seconds' },
  'recovery.kickAfterShellFailures': {
    type: 'integer',
    default: 3,
    min: 0,
    max: 1000,
    help: 'kick (`adb -s SERIAL reconnect`) a ready device after this many inventories in a row failed or missed their deadline; 0 never kicks',
  },
  'recovery.kickCooldownSeconds': { type: 'integer', default: 300, min: 10, max: 86400, help: 'at least this long between two kicks of one device' },
  'recovery.maxKicksPerHour': { type: 'integer', default: 3, min: 1, max: 60, help: 'kicks of one device in an hour at most' },
  'recovery.powerCycle': {
    type: 'boolean',
    default: false,
    help: 'power-cycle the hub port behind a phone (`hubPorts`) that a kick did not bring back, or that stayed offline through 2 offline reconnects and two `offlineCooldownSeconds`, after the kick cooldown and at most `maxKicksPerHour` times an hour; needs a hub with per-port power switching',
  },
  'recovery.powerCycleCommand': {
    type: 'string',
    default: 'uhubctl',
    format: 'command, split on spaces',
    help: 'run as `COMMAND -l HUB -p PORT -a cycle` (and `-a off`, `-a on` for charge pauses), without a shell: `uhubctl`, or a command taking its arguments (a wrapper with `sudo`, another tool)',
  },
  'recovery.bookingCacheSeconds': {
    type: 'integer',
    default: 30,
    min: 1,
    max: 600,
    help: 'before a disruptive action (a kick, `adb reconnect`) the cloud is asked whether the device is booked (`GET /devices/{udid}/status`); its answer stands this long (s)',
  },
  'recovery.bookingRequestsPerMinute': {
    type: 'integer',
    default: 4,
    min: 1,
    max: 60,
    help: 'booking status requests of the host in any minute at most; a device waits, left alone, when they are spent',
  },
  'recovery.bookingTimeoutSeconds': {
    type: 'integer',
    default: 5,
    min: 1,
    max: 60,
    help: 'a booking status request without an answer by then counts as no answer: the device is left alone',
  },
} as const satisfies Record<string, Field>;
