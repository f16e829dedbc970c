// What the Android platform offers the doctor (the capability of
// src/platforms/doctor.ts): adb's errors, variables and banner, what to do
// about a phone adb lists but cannot use, and the outputs of the doctor's one
// shell per phone (the battery, the readiness sections as the inventory runs
// them). The doctor (src/doctor/) judges what these say and names no platform.
import type { ServiceDoctor, ToolVersion } from '../doctor.js';
import { AdbUnreachableError, ShellTimeoutError } from './adb/errors.js';
import { notReadyMessage } from './inventory/assemble.js';
import { onExternalPower, parseBattery } from './inventory/parsers/battery.js';
import { parseReadiness } from './inventory/parsers/readiness.js';
import { READINESS_PROBES } from './inventory/probes/readiness.js';
import { SERIAL_KEYS } from './inventory/identity.js';
import { firstProp } from './inventory/parsers/getprop.js';
import { buildInventoryScript, marker, splitSections } from './inventory/script.js';
import { WEAR_COMMAND, wearOfOutput } from './wear.js';

/** The readiness sections as the inventory runs them, then the brand the vendor checks need. */
export const READINESS_COMMAND = `${buildInventoryScript({ tiers: [], sections: READINESS_PROBES.map((p) => p.section) })}echo "brand:$(getprop ro.product.brand)"\n`;
const FIRST = marker(READINESS_PROBES[0].section);

/** Splits the doctor's output where the readiness part starts: what comes before, and the readiness answer (undefined when it never started). */
export function splitReadiness(output: string): ReturnType<ServiceDoctor['splitReadiness']> {
  const at = output.indexOf(FIRST);
  if (at < 0) return { head: output };
  const tail = output.slice(at);
  const sections = splitSections(tail).sections;
  const brand = /^brand:(.*)$/m.exec(tail)?.[1]?.trim();
  const text = READINESS_PROBES.flatMap((p) => sections.get(p.section) ?? []).join('\n');
  return { head: output.slice(0, at), readiness: { text, ...(brand ? { brand } : {}) } };
}

const UDID_SECTION = 'doctor_udid';
/**
 * The properties the inventory takes the udid from (identityFromProps), one a line, between two markers of the
 * session's token: a value the phone gives cannot forge where the part starts or ends.
 */
export const UDID_COMMAND = `echo '${marker(UDID_SECTION)}'; ${SERIAL_KEYS.map((k) => `getprop ${k} 2>&1`).join('; ')}; echo '${marker(`${UDID_SECTION}_end`)}'\n`;

/** The udid in a doctor's output that ran UDID_COMMAND, as the inventory reads it (the adb serial where the phone gives none); undefined when the part is not there whole. */
export function udidOfOutput(output: string, serial: string): string | undefined {
  const text = splitSections(output).sections.get(UDID_SECTION);
  if (text === undefined) return undefined;
  const lines = text.split('\n');
  return firstProp(Object.fromEntries(SERIAL_KEYS.map((k, i) => [k, lines[i] ?? ''])), SERIAL_KEYS) ?? serial;
}

/** The output of `adb version`; undefined when it does not name a version. */
export function parseAdbVersion(output: string): ToolVersion | undefined {
  const version = /Android Debug Bridge version 1\.0\.(\d+)/.exec(output)?.[1];
  if (version === undefined) return undefined;
  const release = /^(?:Version|Revision) (\S+)/m.exec(output)?.[1];
  const path = /^Installed as (.+?)\s*$/m.exec(output)?.[1];
  return { version: Number(version), release, path };
}

export const ADB_DOCTOR: ServiceDoctor = {
  addressVariables: { socket: 'ADB_SERVER_SOCKET', port: 'ANDROID_ADB_SERVER_PORT' },
  unreachable: (error) => (error instanceof AdbUnreachableError ? error.code : undefined),
  partialOutput: (error) => (error instanceof ShellTimeoutError ? error.partial : undefined),
  toolVersion: parseAdbVersion,
  notReadyAdvice: notReadyMessage,
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
  udidCommand: UDID_COMMAND,
  udid: udidOfOutput,
  wearCommand: WEAR_COMMAND,
  wear: wearOfOutput,
};
