// The probes read on every inventory of what the phone has left: the battery, the data partition, memory, and the
// uptime, which the script runs last.
import type { Probe } from './types.js';
import { type BatteryReading, fixedByHealthd, onExternalPower, parseBattery } from '../parsers/battery.js';
import { dropUndefined } from '../../../../util/drop-undefined.js';
import { type Capacity, parseDf } from '../parsers/df.js';
import { type Memory, parseMeminfo } from '../../../../util/meminfo.js';
import { parseUptimeSeconds } from '../parsers/uptime.js';

export const battery: Probe<BatteryReading> = {
  section: 'battery',
  tier: 'volatile',
  // Only the lines of the keys the parser reads (BATTERY_KEYS) leave the phone: Samsung's dump is 11 KB, its event log
  // mostly. The patterns are short, as the script must fit in 4 KiB; a test checks that each key's line passes.
  command:
    "t dumpsys battery 2>&1 | keep '[AUWD]* powered:*' 'M*voltage:*' 'status:*' 'health:*' 'present:*' 'level:*' 'scale:*' 'voltage:*' 'temperature:*' 'technology:*' 'mSavedBattery[ABU]*'",
  fields: ['battery'],
  note: 'the battery service, the lines of the keys its parser reads only: 0.3-0.5 KB (Samsung prints 1-11 KB whole)',
  props: ['ro.boot.fake_battery'],
  parse: parseBattery,
  fill(info, reading, { props, observedAtMs }) {
    if (!reading) return;
    const { status, voltage, health, technology } = reading;
    const fixed = fixedByHealthd(props['ro.boot.fake_battery']);
    const battery = dropUndefined({
      status,
      temperature: fixed ? undefined : reading.temperature,
      voltage,
      health,
      technology,
      percentage: fixed ? undefined : reading.percentage,
    });
    if (Object.keys(battery).length > 0) info.battery = battery;
    // What the contract has no field for goes beside it, for the agent's own health rules and metrics only.
    const detail = dropUndefined({
      externalPower: onExternalPower(reading),
      chargerMillivolts: reading.maxChargingVoltage,
      cycleCount: reading.cycleCount,
      healthPercent: reading.healthPercent,
    });
    if (Object.keys(detail).length > 0) info.batteryDetail = dropUndefined({ ...detail, observedAtMs });
  },
};

export const df: Probe<Capacity> = {
  section: 'df',
  tier: 'volatile',
  command: 'df /data',
  fields: ['storage'],
  note: 'the data partition only',
  parse: (text) => parseDf(text),
  fill(info, reading) {
    info.storage = reading;
  },
};

export const meminfo: Probe<Memory> = {
  section: 'meminfo',
  tier: 'volatile',
  command: 'cat /proc/meminfo',
  fields: ['memory'],
  note: 'MemTotal and MemAvailable (or Free+Buffers+Cached before kernel 3.14)',
  parse: parseMeminfo,
  fill(info, reading) {
    if (reading) info.memory = { total: reading.total, used: reading.used };
  },
};

export const uptime: Probe<number> = {
  section: 'uptime',
  tier: 'volatile',
  command: 'cat /proc/uptime',
  fields: ['uptime', 'bootTime'],
  note: 'last in the script: the host dates the boot when the output arrives; a boot instant that moved, or a smaller uptime, means a reboot',
  parse: parseUptimeSeconds,
  // bootTime by the host's clock (NTP), the output's arrival minus the uptime: a lab phone's own clock may be wrong.
  fill(info, seconds, ctx) {
    if (seconds === undefined) return;
    info.uptime = Math.floor(seconds);
    if (ctx.observedAtMs !== undefined) info.bootTime = Math.round(ctx.observedAtMs / 1000 - seconds);
  },
};
