// The doctor's observations: each check talks to one thing (the state directory, the adb server, the cloud), never
// throws, and turns what it saw into checklist items with findings.ts. A failing check never stops another.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ServiceDoctor } from '../platforms/doctor.js';
import type { CloudClient } from '../cloud/client.js';
import type { Settings } from '../config/schema.js';
import { stateDirOf } from '../config/node-id.js';
import { parseNodeIdFile } from '../config/node-id-text.js';
import { readStateFile, StateFileError } from '../util/atomic-file.js';
import { mapLimit } from '../util/limit.js';
import type { CheckItem } from './checklist.js';
import { errorText } from '../util/error-text.js';
import type { DoctorPhone, FeatureDoctor } from '../features/context.js';
import {
  adbServerFailed,
  adbServerItem,
  adbToolItem,
  clockItem,
  cloudFailed,
  cloudItem,
  deviceItem,
  devicesFailed,
  NoAnswerError,
  noDevicesItem,
  parseModel,
  type CloudTarget,
  type DeviceFacts,
  type NodeIdFacts,
} from './findings.js';
import { compareStrings } from '../util/compare.js';

/** A device as the service lists it: its serial and the service's state string; the long listing also places it (usb path, transport id). */
interface ListedDevice {
  serial: string;
  state: string;
  usb?: string;
  transportId?: string;
}

/** The part of the platform's service client (AdbClient) the doctor uses. */
export interface DoctorAdb {
  readonly label: string;
  version(): Promise<number>;
  listDevices(): Promise<ListedDevice[]>;
  /** adb's long listing (usb path, transport id); without it the doctor shows no USB topology. */
  listDevicesLong?(): Promise<ListedDevice[]>;
  shell(serial: string, command: string, options: { timeoutMs: number; maxBytes?: number }): Promise<{ output: string }>;
}

export interface AdbCheckOptions {
  /** The platform's doctor words (src/platforms/doctor.ts): its errors, variables, banner and phones' outputs. */
  service: ServiceDoctor;
  /** How long the server may take for version and the device list. */
  answerTimeoutMs: number;
  /** How long one device may take for its one shell (a getprop, or with the features' sections). */
  shellTimeoutMs: number;
  /** Devices whose getprop runs at once. */
  concurrency: number;
  hiddenDevices: readonly string[];
  /** The output of `adb version` of the adb on PATH, or undefined when there is none. */
  adbTool?: () => Promise<string | undefined>;
  /**
   * The registered features' doctor lines: each phone's after its own, and theirs over the phones after all of them;
   * the one shell of each ready device also prints what they read (its battery; the readiness sections and the wear
   * sections, within `readinessTimeoutMs`).
   */
  features?: readonly FeatureDoctor[];
}

export const MODEL_COMMAND = 'getprop ro.product.model';

/** The adb server, then every device it lists: one shell per ready device, none for the others. */
export async function checkAdb(adb: DoctorAdb, options: AdbCheckOptions): Promise<CheckItem[]> {
  const { service, answerTimeoutMs, features = [] } = options;
  let version: number;
  try {
    version = await answerWithin(adb.version(), `adb server ${adb.label}`, answerTimeoutMs);
  } catch (error) {
    return [adbServerFailed(adb.label, error, service)];
  }
  // `adb version` of the tool on PATH only prints: it runs beside the device list.
  const [banner, devices] = await Promise.all([
    options.adbTool?.(),
    answerWithin(adb.listDevices(), 'the device list', answerTimeoutMs).catch((error: unknown) => ({ error })),
  ]);
  const items = [adbServerItem(adb.label, version)];
  const tool = service.toolVersion(banner ?? '');
  if (tool) items.push(adbToolItem(tool, version));
  if (!Array.isArray(devices)) return [...items, devicesFailed(devices.error)];
  if (devices.length === 0) return [...items, noDevicesItem()];
  // The long listing only adds where each device is plugged: without it, the rest stands.
  const long = adb.listDevicesLong ? await answerWithin(adb.listDevicesLong(), 'the long device list', answerTimeoutMs).catch((): ListedDevice[] => []) : [];
  const where = new Map(long.map((d) => [d.serial, d]));
  const hidden = new Set(options.hiddenDevices);
  const sorted = [...devices].sort((a, b) => compareStrings(a.serial, b.serial));
  const reads = new Set(features.flatMap((f) => f.reads ?? []));
  // The phones as the features read them too: the battery and the readiness sections parsed by the platform.
  const phones = await mapLimit(sorted, options.concurrency, async (device) => ({
    ...(await deviceFacts(adb, service, device, hidden, options.shellTimeoutMs, reads)),
    usb: where.get(device.serial)?.usb,
    transportId: where.get(device.serial)?.transportId,
  }));
  return [
    ...items,
    ...phones.flatMap((p) => [deviceItem(p, service), ...features.flatMap((d) => d.phone?.(p) ?? [])]),
    ...features.flatMap((d) => d.phones?.(phones) ?? []),
    ...features.flatMap((d) => d.ports?.(phones) ?? []),
  ];
}

async function deviceFacts(adb: DoctorAdb, service: ServiceDoctor, device: ListedDevice, hidden: Set<string>, timeoutMs: number, reads: ReadonlySet<string>) {
  const [battery, readiness, wear] = ['battery', 'readiness', 'wear'].map((r) => reads.has(r));
  const facts: DeviceFacts & DoctorPhone = { serial: device.serial, state: device.state };
  // The report hides by udid (src/report/decorate.ts): one it could not read yet is its adb serial, as the report's.
  const judgeHidden = (udid: string) => {
    facts.udid = udid;
    if (hidden.has(udid)) facts.hidden = 'udid';
    else if (hidden.has(device.serial)) facts.hidden = 'serial';
  };
  if (device.state !== 'device') {
    judgeHidden(device.serial);
    facts.unread = `adb lists it ${device.state.trim() || 'in no state'}`;
    return facts;
  }
  try {
    // Still one shell per device: the udid's lines and the battery's output follow the model's one line, the readiness
    // sections follow them all, the wear sections come last: a cut in them leaves the readiness part before them whole.
    const first = `${MODEL_COMMAND}; ${service.udidCommand}`;
    const command = `${battery ? `${first}; ${service.batteryCommand}` : first}${readiness ? `\n${service.readinessCommand}` : ''}${wear ? `\n${service.wearCommand}` : ''}`;
    // A Samsung battery service prints 11 KB (its logs after the figures).
    const output = await adb.shell(device.serial, command, { timeoutMs, maxBytes: battery || readiness || wear ? 64 * 1024 : 4096 }).then(
      (result) => result.output,
      (error: unknown) => {
        // A shell cut at the deadline leaves what came before the cut (the model, the battery) as true as ever; the rest is unread.
        const partial = service.partialOutput(error);
        if (!partial) throw error;
        facts.unread = `its shell was cut short after ${timeoutMs / 1000} s`;
        return partial;
      },
    );
    const { head, readiness: answer } = readiness ? service.splitReadiness(output) : { head: output, readiness: undefined };
    const worn = wear ? service.wear(output) : undefined;
    if (worn) facts.wear = worn;
    // The readiness part is whole when the output is, or when a wear section after it arrived.
    if (answer) {
      const whole = facts.unread === undefined || worn !== undefined ? answer : { text: '' };
      facts.readiness = { reading: service.parseReadiness(whole.text), brand: whole.brand };
    }
    const { udid, rest } = service.udid(head.slice(head.indexOf('\n') + 1), device.serial);
    judgeHidden(udid ?? device.serial);
    if (battery) facts.battery = service.battery(rest);
    const model = parseModel(head);
    if (model === undefined) facts.unread = `${MODEL_COMMAND} answered nothing`;
    else facts.model = model;
  } catch (error) {
    facts.unread = `its shell failed: ${errorText(error)}`;
    if (facts.udid === undefined) judgeHidden(device.serial);
  }
  return facts;
}

/** `adb version` of the adb on PATH; it only prints, it never talks to a server. Undefined when there is no adb or it fails. */
export function runAdbVersion(env: NodeJS.ProcessEnv) {
  return promisify(execFile)('adb', ['version'], { env, timeout: 5_000, encoding: 'utf8' }).then(
    (r) => r.stdout,
    () => undefined,
  );
}

/** One GET /devices (the part of CloudClient the doctor uses): the credentials, then the clock from the answer's Date header. */
export async function checkCloud(cloud: Pick<CloudClient, 'checkCredentials'>, target: CloudTarget) {
  try {
    const check = await cloud.checkCredentials();
    return [cloudItem(target, check), clockItem(check.clockSkewMs)];
  } catch (error) {
    return [cloudFailed(target, error)];
  }
}

/**
 * Where the node id stands, read without side effects: the doctor neither creates the id nor the directory, it only
 * says whether the agent could.
 */
export function inspectNodeId(settings: Settings, env: NodeJS.ProcessEnv): NodeIdFacts {
  if (settings.nodeId) return { kind: 'configured', id: settings.nodeId };
  const dir = stateDirOf(settings, env);
  const file = join(dir, 'node-id');
  try {
    const text = readStateFile(file, 1024 * 1024);
    const kept = text === undefined ? undefined : parseNodeIdFile(text);
    if (kept?.kind === 'id') return { kind: 'kept', id: kept.id, file };
    if (kept?.kind === 'foreign') return { kind: 'unreadable', file, reason: `not a node id the agent wrote: it ${kept.problem}` };
  } catch (error) {
    if (error instanceof StateFileError) return { kind: 'unreadable', file, reason: error.reason };
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: something on the way is a file, so there is no id to read; the directory check below says why.
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return { kind: 'unreadable', file, reason: code ?? (error as Error).message };
  }
  const problem = unwritable(dir);
  return problem === undefined ? { kind: 'new', dir } : { kind: 'unwritable', dir, reason: problem };
}

/** Why the agent could not create a file in dir (making dir first if needed), or undefined when it could. */
export function unwritable(dir: string): string | undefined {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return code ?? 'error';
    // Not there yet: the agent would make it in its nearest parent that is.
    return dirname(dir) === dir ? 'ENOENT' : unwritable(dirname(dir));
  }
  if (!isDir) return `${dir} is not a directory`;
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'not writable';
  }
}

// adbkit has no timeouts of its own: an address that accepts connections but never answers (another service, a hung
// server) would hang the doctor.
async function answerWithin<T>(promise: Promise<T>, what: string, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerError(what, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
