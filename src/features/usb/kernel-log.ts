// The doctor's line on the kernel log: whether the agent can read it where it runs. The doctor opens it as itself, and
// reads the installed unit and drop-ins, which may take /dev/kmsg away from the service (PrivateDevices=yes without
// the bind, ProtectKernelLogs=yes, PrivateUsers=yes, no CAP_SYSLOG under dmesg_restrict) however readable it is here.
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckResult } from '../../platforms/doctor.js';
import { notAKernelLog } from './kernel-line.js';
import { logSourceOf, type LogSource } from './log-source.js';
import { readText } from './sysfs.js';

/** Where the packaged unit may be installed, the administrator's copy first. */
const UNIT_DIRS = ['/etc/systemd/system', '/lib/systemd/system', '/usr/lib/systemd/system'];
const UNIT = 'device-agent.service';

export interface KernelLogFacts {
  path: string;
  /** Undefined when it opened; else the error's code (ENOENT, EACCES, ...). */
  error?: string;
  /** What it opened as: the kernel's /dev/kmsg, a recording of kernel lines (a file or a pipe), or what it is instead of a kernel log. */
  is?: LogSource;
  /** The doctor runs under systemd (INVOCATION_ID): it opened the log as a service does. */
  underSystemd: boolean;
  /** The installed unit, when it keeps the service from reading /dev/kmsg (with its drop-ins), and why: read for /dev/kmsg only. */
  hidingUnit?: string;
  hiding?: string;
  /** The installed unit, when it lets the service read /dev/kmsg (the packaged one does). */
  openingUnit?: string;
  /** The doctor runs as root where kernel.dmesg_restrict=1: what it can read says nothing of an agent running as another user. */
  rootOverRestrict?: boolean;
}

/** Opens the log read-only, as the follower does, and closes it at once; reads the installed unit. */
export function kernelLogFacts(
  path: string,
  env: NodeJS.ProcessEnv,
  unitDirs: readonly string[] = UNIT_DIRS,
  restrictFile = '/proc/sys/kernel/dmesg_restrict',
) {
  const facts: KernelLogFacts = { path, underSystemd: Boolean(env.INVOCATION_ID) };
  if (path === '') return facts;
  try {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      facts.is = whatIsOpen(fd);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    facts.error = (err as NodeJS.ErrnoException).code ?? 'error';
  }
  const restricted = readText(restrictFile) === '1';
  // Under systemd too: the packaged wrapper's doctor runs outside the unit's sandbox and would see /dev/kmsg it hides.
  const unit = path === '/dev/kmsg' ? installedUnit(unitDirs) : undefined;
  if (unit !== undefined) {
    const hiding = hidingReason(unit.settings, restricted);
    if (hiding === undefined) facts.openingUnit = unit.file;
    else Object.assign(facts, { hidingUnit: unit.file, hiding });
  }
  if (!facts.underSystemd && process.getuid?.() === 0 && restricted) facts.rootOverRestrict = true;
  return facts;
}

/** What an open usb.kernelLog is, as the follower tells it: its kind (fstat), and for a file, whether its start reads as kernel lines. */
function whatIsOpen(fd: number): LogSource {
  const source = logSourceOf(fstatSync(fd));
  if (source.kind !== 'recording') return source;
  const buffer = Buffer.alloc(64 * 1024);
  const n = readSync(fd, buffer, 0, buffer.length, 0);
  const why = notAKernelLog(buffer.toString('utf8', 0, n));
  return why === undefined ? source : { kind: 'not-a-log', what: `a file whose start is no kernel log (${why})` };
}

const YES = /^(?:yes|true|on|1)$/i;

/** The installed unit file and its [Service] settings, the drop-ins' after the unit's (each key's values in order; an empty value resets a list). */
function installedUnit(dirs: readonly string[]) {
  for (const dir of dirs) {
    const file = join(dir, UNIT);
    const text = readText(file);
    if (text === undefined) continue;
    const settings = new Map<string, string[]>();
    for (const t of [text, ...dirs.flatMap((d) => confFiles(join(d, `${UNIT}.d`)))]) serviceSettings(t, settings);
    return { file, settings };
  }
}

function serviceSettings(text: string, into: Map<string, string[]>) {
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    section = /^\[(.+)\]$/.exec(line)?.[1] ?? section;
    const m = /^([A-Za-z]+)\s*=\s*(.*)$/.exec(line);
    if (section !== 'Service' || !m) continue;
    const [, key, value] = m;
    into.set(key!, value === '' ? [] : [...(into.get(key!) ?? []), value!]);
  }
}

/** Why the unit keeps its service from reading /dev/kmsg, in systemd's words; undefined when it lets it. */
function hidingReason(settings: Map<string, string[]>, restricted: boolean) {
  const all = (key: string) => settings.get(key) ?? [];
  // A key's last value: the one that holds ("" for none).
  const last = (key: string) => all(key).at(-1) ?? '';
  const yes = (key: string) => YES.test(last(key));
  if (yes('ProtectKernelLogs')) return 'ProtectKernelLogs=yes, which denies /dev/kmsg to the service';
  const bound = [...all('BindReadOnlyPaths'), ...all('BindPaths')].some((v) => v.split(/\s+/).some((p) => p.replace(/^-/, '').split(':')[0] === '/dev/kmsg'));
  const privateDevices = yes('PrivateDevices');
  if (privateDevices && !bound) return 'PrivateDevices=yes without BindReadOnlyPaths=/dev/kmsg, which hides /dev/kmsg from the service';
  const policed = privateDevices || /^(?:closed|strict)$/.test(last('DevicePolicy'));
  const allowed = all('DeviceAllow').some((v) => /^(?:\/dev\/kmsg|char-mem)\s+\S*r/.test(v));
  if (policed && !allowed) return 'a closed device policy without DeviceAllow=/dev/kmsg r, which refuses the service the open';
  if (!restricted) return undefined;
  // As root (no User=, or User=root or 0) without DynamicUser=: the host's CAP_SYSLOG.
  if (!yes('DynamicUser') && ['', 'root', '0'].includes(last('User'))) return undefined;
  if (yes('PrivateUsers')) return "PrivateUsers=yes, under which the service's CAP_SYSLOG is not the host's, and kernel.dmesg_restrict=1 asks for the host's";
  const caps = (key: string) =>
    all(key)
      .flatMap((v) => v.split(/\s+/))
      .map((c) => c.toUpperCase());
  if (!caps('AmbientCapabilities').includes('CAP_SYSLOG')) return 'no AmbientCapabilities=CAP_SYSLOG, which kernel.dmesg_restrict=1 asks for';
  const bounding = caps('CapabilityBoundingSet');
  if (settings.has('CapabilityBoundingSet') && (bounding.includes('~CAP_SYSLOG') || !bounding.some((c) => c === 'CAP_SYSLOG' || c.startsWith('~'))))
    return 'a CapabilityBoundingSet= without CAP_SYSLOG, which kernel.dmesg_restrict=1 asks for';
  return undefined;
}

function confFiles(dir: string) {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.conf'))
      .sort()
      .map((n) => readFileSync(join(dir, n), 'utf8'));
  } catch {
    return [];
  }
}

const OFF_ON_PURPOSE = 'or set usb.kernelLog to "" to say it is off on purpose; everything else works without it';
/** What the packaged unit has for it, and how to find what took it away. */
const PACKAGED =
  'the packaged unit lets the service read it (BindReadOnlyPaths=-/dev/kmsg, DeviceAllow=/dev/kmsg r, AmbientCapabilities=CAP_SYSLOG, no PrivateUsers= or ProtectKernelLogs=): `systemctl cat device-agent` shows the drop-in or the copy that changed that';

export function kernelLogItem(facts: KernelLogFacts): CheckResult {
  const { path, error } = facts;
  if (path === '') return { status: 'ok', finding: 'USB kernel log: off (usb.kernelLog is empty): ports, hubs and controllers are not judged' };
  if (error === 'ENOENT') {
    return {
      status: 'warn',
      finding:
        path === '/dev/kmsg'
          ? 'USB kernel log: /dev/kmsg does not exist here (a container started without it, or a unit that hides it): the USB layer cannot say which port, hub or controller fails'
          : `USB kernel log: usb.kernelLog ${path} does not exist`,
      advice:
        path === '/dev/kmsg'
          ? `in a container, pass it in (podman run --device /dev/kmsg:/dev/kmsg:r ..., and CAP_SYSLOG where kernel.dmesg_restrict=1); under systemd, ${PACKAGED}; ${OFF_ON_PURPOSE}`
          : `point usb.kernelLog at /dev/kmsg or at a recording of its records; ${OFF_ON_PURPOSE}`,
    };
  }
  if (error === 'EACCES' || error === 'EPERM') {
    return {
      status: 'warn',
      finding: `USB kernel log: ${path} cannot be read (${error}): the USB layer cannot say which port, hub or controller fails`,
      advice: `with kernel.dmesg_restrict=1 only CAP_SYSLOG (of the host's user namespace) reads /dev/kmsg: give the agent CAP_SYSLOG (${PACKAGED}), or set kernel.dmesg_restrict=0; ${OFF_ON_PURPOSE}`,
    };
  }
  if (error !== undefined) {
    return { status: 'warn', finding: `USB kernel log: ${path} cannot be opened (${error})`, advice: `check usb.kernelLog; ${OFF_ON_PURPOSE}` };
  }
  if (facts.is?.kind === 'not-a-log') {
    return {
      status: 'warn',
      finding: `USB kernel log: ${path} is ${facts.is.what}, not a kernel log: the USB layer reads nothing from it`,
      advice: `point usb.kernelLog at /dev/kmsg, or at a recording of its records (a file or a pipe of kernel lines); ${OFF_ON_PURPOSE}`,
    };
  }
  if (facts.hidingUnit !== undefined) {
    return {
      status: 'warn',
      finding: `USB kernel log: /dev/kmsg is readable by this doctor, but not by the service: its unit ${facts.hidingUnit} has ${facts.hiding ?? 'settings that hide it'}`,
      advice: `the service's USB layer stays off (it says so once at start) and the rest works; ${PACKAGED}; ${OFF_ON_PURPOSE}`,
    };
  }
  if (facts.openingUnit !== undefined && !facts.underSystemd) {
    return {
      status: 'ok',
      finding: `USB kernel log: /dev/kmsg readable by this doctor, and its unit ${facts.openingUnit} lets the service read it: the USB layer judges ports, hubs and controllers`,
    };
  }
  if (facts.rootOverRestrict && path === '/dev/kmsg') {
    return {
      status: 'ok',
      finding:
        'USB kernel log: /dev/kmsg readable by this doctor, run as root; with kernel.dmesg_restrict=1 an agent running as another user reads it only with CAP_SYSLOG (run doctor as the agent runs to know)',
    };
  }
  const what = facts.is?.kind === 'recording' ? ', a recording of kernel lines,' : facts.is?.kind === 'stream' ? ', a pipe (a replay),' : '';
  return {
    status: 'ok',
    finding: `USB kernel log: ${path}${what} readable${facts.underSystemd ? ' under systemd, as the service runs' : ''}: the USB layer judges ports, hubs and controllers`,
  };
}
