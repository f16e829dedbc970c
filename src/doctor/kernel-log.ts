// The doctor's line on the USB layer's kernel log (usb.kernelLog): whether
// the agent can read it where it runs. The doctor opens it as itself; run
// by hand on a host with the packaged unit, it also reads the unit, whose
// PrivateDevices=yes hides /dev/kmsg from the service however readable it
// is to the person running the doctor.
import { closeSync, constants, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckItem } from './checklist.js';

/** Where the packaged unit may be installed, the administrator's copy first. */
const UNIT_DIRS = ['/etc/systemd/system', '/lib/systemd/system', '/usr/lib/systemd/system'];
const UNIT = 'device-agent.service';

export interface KernelLogFacts {
  path: string;
  /** Undefined when it opened; else the error's code (ENOENT, EACCES, ...). */
  error?: string;
  /** The doctor runs under systemd (INVOCATION_ID): it opened the log as the service would. */
  underSystemd: boolean;
  /** The installed unit that hides /dev/kmsg from the service (PrivateDevices=yes, no drop-in opening it), if any. */
  hidingUnit?: string;
  /** The doctor runs as root where kernel.dmesg_restrict=1: what it can read says nothing of an agent running as another user. */
  rootOverRestrict?: boolean;
}

/** Opens the log read-only, as the follower does, and closes it at once; reads the installed unit. */
export function kernelLogFacts(
  path: string,
  env: NodeJS.ProcessEnv,
  unitDirs: readonly string[] = UNIT_DIRS,
  restrictFile = '/proc/sys/kernel/dmesg_restrict',
): KernelLogFacts {
  const facts: KernelLogFacts = { path, underSystemd: Boolean(env.INVOCATION_ID) };
  if (path === '') return facts;
  try {
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
  } catch (err) {
    facts.error = (err as NodeJS.ErrnoException).code ?? 'error';
  }
  const unit = facts.underSystemd ? undefined : hidingUnit(unitDirs);
  if (unit !== undefined) facts.hidingUnit = unit;
  if (!facts.underSystemd && process.getuid?.() === 0 && dmesgRestricted(restrictFile)) facts.rootOverRestrict = true;
  return facts;
}

function dmesgRestricted(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** The installed unit file when it sets PrivateDevices=yes and no drop-in turns it off or binds /dev/kmsg in. */
function hidingUnit(dirs: readonly string[]): string | undefined {
  for (const dir of dirs) {
    const file = join(dir, UNIT);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    if (!/^\s*PrivateDevices\s*=\s*(?:yes|true|on|1)\s*$/m.test(text)) return undefined;
    const dropIns = dirs.flatMap((d) => confFiles(join(d, `${UNIT}.d`)));
    const opened = dropIns.some((t) => /^\s*PrivateDevices\s*=\s*(?:no|false|off|0)\s*$/m.test(t) || /^\s*Bind(?:ReadOnly)?Paths\s*=.*\/dev\/kmsg/m.test(t));
    return opened ? undefined : file;
  }
  return undefined;
}

function confFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.endsWith('.conf'))
      .map((n) => readFileSync(join(dir, n), 'utf8'));
  } catch {
    return [];
  }
}

const OFF_ON_PURPOSE = 'or set usb.kernelLog to "" to say it is off on purpose; everything else works without it';
const DROP_IN =
  'a drop-in (systemctl edit device-agent) with BindReadOnlyPaths=/dev/kmsg and DeviceAllow=/dev/kmsg r, and where kernel.dmesg_restrict=1 also AmbientCapabilities=CAP_SYSLOG with PrivateUsers=no';

export function kernelLogItem(facts: KernelLogFacts): CheckItem {
  const { path, error } = facts;
  if (path === '') return { status: 'ok', finding: 'USB kernel log: off (usb.kernelLog is empty): ports, hubs and controllers are not judged' };
  if (error === 'ENOENT') {
    return {
      status: 'warn',
      finding:
        path === '/dev/kmsg'
          ? 'USB kernel log: /dev/kmsg does not exist here (a container started without it, or a unit with PrivateDevices=yes): the USB layer cannot say which port, hub or controller fails'
          : `USB kernel log: usb.kernelLog ${path} does not exist`,
      advice:
        path === '/dev/kmsg'
          ? `in a container, pass it in (podman run --device /dev/kmsg ..., and CAP_SYSLOG where kernel.dmesg_restrict=1); under the packaged unit, ${DROP_IN}; ${OFF_ON_PURPOSE}`
          : `point usb.kernelLog at /dev/kmsg or at a recording of its records; ${OFF_ON_PURPOSE}`,
    };
  }
  if (error === 'EACCES' || error === 'EPERM') {
    return {
      status: 'warn',
      finding: `USB kernel log: ${path} cannot be read (${error}): the USB layer cannot say which port, hub or controller fails`,
      advice: `with kernel.dmesg_restrict=1 only CAP_SYSLOG reads /dev/kmsg: give the agent CAP_SYSLOG, or set kernel.dmesg_restrict=0; ${OFF_ON_PURPOSE}`,
    };
  }
  if (error !== undefined) {
    return { status: 'warn', finding: `USB kernel log: ${path} cannot be opened (${error})`, advice: `check usb.kernelLog; ${OFF_ON_PURPOSE}` };
  }
  if (facts.hidingUnit !== undefined && path === '/dev/kmsg') {
    return {
      status: 'warn',
      finding: `USB kernel log: /dev/kmsg is readable by this doctor, but not by the service: its unit ${facts.hidingUnit} has PrivateDevices=yes, which hides /dev/kmsg`,
      advice: `the service's USB layer stays off (it says so once at start) and the rest works; to let it read the kernel's messages, ${DROP_IN}; ${OFF_ON_PURPOSE}`,
    };
  }
  if (facts.rootOverRestrict && path === '/dev/kmsg') {
    return {
      status: 'ok',
      finding:
        'USB kernel log: /dev/kmsg readable by this doctor, run as root; with kernel.dmesg_restrict=1 an agent running as another user reads it only with CAP_SYSLOG (run doctor as the agent runs to know)',
    };
  }
  return {
    status: 'ok',
    finding: `USB kernel log: ${path} readable${facts.underSystemd ? ' under systemd, as the service runs' : ''}: the USB layer judges ports, hubs and controllers`,
  };
}
