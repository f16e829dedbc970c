// The Android platform's part of the doctor: adb's errors, variables and banner, what to do about a phone adb lists but
// cannot use, and the doctor's one shell per phone. The doctor judges what these say and names no platform.
import type { ServiceDoctor, ToolVersion } from '../doctor.js';
import { AdbUnreachableError, ShellTimeoutError } from './adb/errors.js';
import { notReadyMessage } from './inventory/assemble.js';
import { identityFromProps, SERIAL_KEYS } from './inventory/identity.js';
import { onExternalPower, parseBattery } from './inventory/parsers/battery.js';
import { parseReadiness } from './inventory/parsers/readiness.js';
import { READINESS_PROBES } from './inventory/probes/readiness.js';
import { buildInventoryScript, marker, splitSections } from './inventory/script.js';
import { WEAR_COMMAND, wearOfOutput } from './wear.js';

/** The readiness sections as the inventory runs them, then the brand the vendor checks need. */
export const READINESS_COMMAND = `${buildInventoryScript({ tiers: [], sections: READINESS_PROBES.map((p) => p.section) })}echo "brand:$(getprop ro.product.brand)"\n`;
const FIRST = marker(READINESS_PROBES[0].section);

/** Splits the doctor's output where the readiness part starts: what comes before, and the readiness answer (undefined when it never started). */
export function splitReadiness(output: string) {
  const at = output.indexOf(FIRST);
  if (at < 0) return { head: output };
  const tail = output.slice(at);
  const sections = splitSections(tail).sections;
  const brand = /^brand:(.*)$/m.exec(tail)?.[1]?.trim();
  const text = READINESS_PROBES.flatMap((p) => sections.get(p.section) ?? []).join('\n');
  return { head: output.slice(0, at), readiness: { text, ...(brand && { brand }) } };
}

/** The output of `adb version`; undefined when it does not name a version. */
export function parseAdbVersion(output: string): ToolVersion | undefined {
  const version = /Android Debug Bridge version 1\.0\.(\d+)/.exec(output)?.[1];
  if (version === undefined) return undefined;
  const release = /^(?:Version|Revision) (\S+)/m.exec(output)?.[1];
  const path = /^Installed as (.+?)\s*$/m.exec(output)?.[1];
  return { version: Number(version), release, path };
}

/** The udid the report gives the phone, from the lines the udid command printed first, and the output after them; no udid when one is missing. */
function udidOf(afterModel: string, serial: string) {
  const lines = afterModel.split('\n');
  const props: Record<string, string> = {};
  for (const [i, name] of SERIAL_KEYS.entries()) {
    const line = lines[i]?.replace(/\r$/, '');
    if (!line?.startsWith(`${name}:`)) return { rest: afterModel };
    props[name] = line.slice(name.length + 1);
  }
  return { udid: identityFromProps(props, serial).udid, rest: lines.slice(SERIAL_KEYS.length).join('\n') };
}

export const ADB_DOCTOR: ServiceDoctor = {
  addressVariables: { socket: 'ADB_SERVER_SOCKET', port: 'ANDROID_ADB_SERVER_PORT' },
  unreachable: (error) => (error instanceof AdbUnreachableError ? error.code : undefined),
  partialOutput: (error) => (error instanceof ShellTimeoutError ? error.partial : undefined),
  toolVersion: parseAdbVersion,
  notReadyAdvice: notReadyMessage,
  // The properties the inventory takes the udid from (identity.ts), one line each, named so that a shell cut short is told.
  udidCommand: SERIAL_KEYS.map((p) => `echo "${p}:$(getprop ${p})"`).join('; '),
  udid: udidOf,
  batteryCommand: 'dumpsys battery',
  battery: (output) => {
    const reading = parseBattery(output);
    return {
      temperatureCelsius: reading.temperature,
      batteryPercent: reading.percentage === undefined ? undefined : Number(reading.percentage),
      status: reading.status,
      batteryHealth: reading.health,
      chargerMillivolts: onExternalPower(reading) === false ? undefined : reading.maxChargingVoltage,
      cycleCount: reading.cycleCount,
      healthPercent: reading.healthPercent,
    };
  },
  readinessCommand: READINESS_COMMAND,
  splitReadiness,
  parseReadiness,
  wearCommand: WEAR_COMMAND,
  wear: wearOfOutput,
};
