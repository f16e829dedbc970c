import { randomBytes } from 'node:crypto';

// The inventory probe as ONE shell script, so that a full inventory costs one
// `adb shell` session. Each probe prints a delimiter line and then its output;
// splitSections() cuts the output back apart.
//
// The script must run on Android 5 (mksh + toolbox) up to 16 (toybox): only
// commands that exist on all of them, `2>&1` on each, never `su` (it can pop a
// grant prompt on the device), and no shell file tests, so that recorded
// command outputs describe a device completely.

export const SECTION = {
  props: 'props',
  uptime: 'uptime',
  battery: 'battery',
  df: 'df',
  meminfo: 'meminfo',
  wmSize: 'wm_size',
  wmDensity: 'wm_density',
  orientation: 'orientation',
  packages: 'packages',
  telephony: 'telephony',
  ip: 'ip',
  proxy: 'proxy',
  ping: 'ping',
  id: 'id',
  su: 'su',
  deviceName: 'device_name',
  bluetoothName: 'bluetooth_name',
  imei: 'imei',
} as const;

export type SectionName = (typeof SECTION)[keyof typeof SECTION];

const END = 'end';

// A token fixed per agent process and unknown to the device: a user-set
// device name or a prop value that happens to read like a delimiter cannot
// shift the sections.
export const SESSION_TOKEN = randomBytes(6).toString('hex');

export function marker(name: string, token = SESSION_TOKEN): string {
  return `<<<DA:${token}:${name}>>>`;
}

// Where su binaries live: classic SuperSU/phh paths, Magisk's /sbin (Android
// up to 10) and /debug_ramdisk (Android 11+), and the /su of systemless SuperSU.
export const SU_PATHS = [
  '/system/bin/su',
  '/system/xbin/su',
  '/system/sbin/su',
  '/sbin/su',
  '/su/bin/su',
  '/debug_ramdisk/su',
  '/vendor/bin/su',
  '/data/local/su',
  '/data/local/bin/su',
  '/data/local/xbin/su',
];

// Only hostnames and IP literals go into the script: the value is shell text.
const SAFE_HOST = /^[A-Za-z0-9][A-Za-z0-9.:-]{0,252}$/;

export function isSafeHost(host: string): boolean {
  return SAFE_HOST.test(host);
}

export interface ScriptOptions {
  /** Host to ping for networkReachability; skipped when absent or unsafe. */
  reachabilityHost?: string;
  /** Add what cannot change while the device stays plugged (IMEI). */
  includeStatic: boolean;
}

/** Seconds one probe command may take where the device has `timeout` (toybox, Android 7+). */
export const PROBE_TIMEOUT_SECONDS = 10;

export function buildInventoryScript(opts: ScriptOptions): string {
  const probes: [string, string][] = [
    [SECTION.props, 'getprop'],
    [SECTION.battery, 't dumpsys battery'],
    [SECTION.df, 'df /data'],
    [SECTION.meminfo, 'cat /proc/meminfo'],
    [SECTION.wmSize, 't wm size'],
    [SECTION.wmDensity, 't wm density'],
    [SECTION.orientation, 't dumpsys input'],
    [SECTION.id, 'id'],
    [SECTION.su, `ls -l ${SU_PATHS.join(' ')}`],
    [SECTION.deviceName, 't settings get global device_name'],
    [SECTION.bluetoothName, 't settings get secure bluetooth_name'],
    [SECTION.proxy, 't settings get global http_proxy'],
    [SECTION.ip, 'ip -o -4 addr'],
    [SECTION.telephony, 't dumpsys telephony.registry'],
    [SECTION.packages, 't pm list packages'],
  ];
  if (opts.includeStatic) {
    probes.push([SECTION.imei, 't service call iphonesubinfo 1']);
  }
  if (opts.reachabilityHost !== undefined && isSafeHost(opts.reachabilityHost)) {
    // -w bounds the whole ping where -W (reply wait) is not honoured.
    probes.push([SECTION.ping, `ping -c 1 -W 2 -w 3 ${opts.reachabilityHost}`]);
  }
  // Last, so that it is read just before the output reaches the host: the
  // agent dates the boot by its own clock at that moment (assemble.ts).
  probes.push([SECTION.uptime, 'cat /proc/uptime']);
  const lines = [
    // t: run a slow framework command under `timeout` where the device has one,
    // so one hung service leaves only its own section empty.
    't() { "$@"; }',
    `command -v timeout >/dev/null 2>&1 && t() { timeout ${PROBE_TIMEOUT_SECONDS} "$@"; }`,
    ...probes.map(([name, command]) => `echo '${marker(name)}'; ${command} 2>&1`),
    `echo '${marker(END)}'`,
  ];
  return lines.join('\n') + '\n';
}

/**
 * Cuts script output into sections by name. A section counts only when the
 * next delimiter printed too: a section cut short (device gone, session timed
 * out) is absent rather than half-read.
 */
export function splitSections(output: string, token = SESSION_TOKEN): Map<string, string> {
  const prefix = `<<<DA:${token}:`;
  const sections = new Map<string, string>();
  let name: string | undefined;
  let body: string[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const found = line.startsWith(prefix) && line.endsWith('>>>') ? line.slice(prefix.length, -3) : undefined;
    if (found === undefined || !/^[a-z0-9_]+$/.test(found)) {
      if (name !== undefined) body.push(line);
      continue;
    }
    if (name !== undefined && !sections.has(name)) sections.set(name, body.join('\n'));
    name = found === END ? undefined : found;
    body = [];
  }
  return sections;
}
