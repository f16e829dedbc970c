// What a platform offers the doctor: the checklist item's words, and a capability to read the platform's service and
// phones without naming it. The platform knows its errors and outputs; the doctor (src/doctor/) judges them.
import type { ReadinessReading } from './readiness.js';
import type { WearReading } from './wear.js';

/** unread: the check could not be read (the phone's shell was cut short, the phone is unauthorized...): never judged fine. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'unread';

/** What a check found, in its own words; the doctor names the check (CheckItem). */
export interface CheckResult {
  status: CheckStatus;
  /** What was found, on one line; for unread, why it could not be read. */
  finding: string;
  /** What the operator should do; shown only when the item is not ok. */
  advice?: string;
  /** A failure of the configuration, one `once` and `run` would refuse to start with (exit 2), rather than of the lab or the cloud. */
  config?: boolean;
}

/** One finding of a named check (docs/reference/doctor.md): the items of one id and phone make one verdict line. */
export interface CheckItem extends CheckResult {
  id: string;
  /** The phone it is about (adb serial or udid): a phone's problem, the host still reports its others; fails only at phone level 'fail'. */
  phone?: string;
}

/** The results as findings of the check `id`. */
export function named(id: string, results: readonly CheckResult[]) {
  return results.map((r) => ({ id, ...r }));
}

/** The version of the service's command-line tool, as its banner prints it. */
export interface ToolVersion {
  /** The service's internal version: 41 for adb 1.0.41. */
  version: number;
  /** The release line: "Version 36.0.0-13206524", "Version 29.0.6-debian". */
  release?: string;
  /** The "Installed as" path. */
  path?: string;
}

/** A battery as one reading of a phone shows it, in the health rules' terms. */
export interface BatteryFacts {
  temperatureCelsius?: number;
  batteryPercent?: number;
  /** The platform's charging status word, as the inventory reports it (CHARGING, FULL, ...). */
  status?: string;
  batteryHealth?: string;
  /** The charger's voltage, only while on external power. */
  chargerMillivolts?: number;
  cycleCount?: number;
  healthPercent?: number;
}

/** What a phone's readiness part of the output says: the sections' text, and its brand. */
export interface ReadinessAnswer {
  text: string;
  brand?: string;
}

/** The capability a platform with a phone service (adb) offers the doctor. */
export interface ServiceDoctor {
  /** The variables that point at the service, for advice: "ADB_SERVER_SOCKET=tcp:HOST:PORT (or ...)". */
  readonly addressVariables: { readonly socket: string; readonly port: string };
  /** The error code of a service that could not be reached, or undefined when the error is another. */
  readonly unreachable: (error: unknown) => string | undefined;
  /** The output a shell cut at its deadline still gave, or undefined when the error is another. */
  readonly partialOutput: (error: unknown) => string | undefined;
  /** The service tool's banner (`adb version`); undefined when it names no version. */
  readonly toolVersion: (output: string) => ToolVersion | undefined;
  /** What to do about a phone the service lists in a state other than ready. */
  readonly notReadyAdvice: (state: string, serial: string) => string;
  /**
   * The shell command that prints, after the model's line, the properties a
   * phone's udid comes from (one line each), and the udid they give, as the
   * report's inventory derives it (its adb serial when they are blank),
   * with what follows them; no udid when the lines are not there (a shell
   * cut short).
   */
  readonly udidCommand: string;
  readonly udid: (afterModel: string, serial: string) => { udid?: string; rest: string };
  /** The shell command that prints the battery, and what its output says. */
  readonly batteryCommand: string;
  readonly battery: (output: string) => BatteryFacts;
  /** The shell command that prints the readiness sections and the brand, where its part starts in an output, and what its text says. */
  readonly readinessCommand: string;
  readonly splitReadiness: (output: string) => { head: string; readiness?: ReadinessAnswer };
  readonly parseReadiness: (text: string) => ReadinessReading | undefined;
  /** The shell command that prints the wear sections (after the others), and the wear reading of an output that ran it. */
  readonly wearCommand: string;
  readonly wear: (output: string) => WearReading | undefined;
}
