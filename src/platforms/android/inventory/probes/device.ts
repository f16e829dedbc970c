// The probes of who the phone is and what it runs: its property dump, its names, root, the kernel's page size, Advanced
// Protection and the installed browsers (one file of the probe table, registry.ts).
import { IDENTITY_PROPS } from '../identity.js';
import { parseGetprop, type Props } from '../parsers/getprop.js';
import type { Probe } from './types.js';
import { parseSettingText } from '../parsers/settings.js';
import { parseIdUid, parseSuListing } from '../parsers/root.js';
import { SU_PATHS } from '../su-paths.js';
import { parsePageSize } from '../parsers/page-size.js';
import { type AdvancedProtection, parseAdvancedProtection } from '../parsers/advanced-protection.js';
import { BROWSERS, installedBrowsers, parsePackages } from '../parsers/packages.js';

/** `keep`: as parseGetprop's, the only properties wanted (the prober asks for those the probes declare). */
export const props: Probe<Props> & { parse(text: string, keep?: ReadonlySet<string>): Props } = {
  section: 'props',
  tier: 'connection',
  command: 'getprop',
  fields: ['udid', 'serialNumber', 'platformVersion', 'modelName', 'brandName', 'cpuArchitecture', 'isEmulator', 'deviceName', 'telephony.carriersInfo'],
  // One property line is enough to tell (parsing a 50 KB dump twice is not free).
  good: (text) => /^\[[^\]\n]+\]: \[/m.test(text),
  note: 'the whole property list, once per connection: identity, ABI, emulator flag, vendor IMEI/MEID props',
  // The identity (identity.ts) is derived from these, once per assembly.
  props: IDENTITY_PROPS,
  parse: parseGetprop,
  // The assembler derives the identity once (identity.ts; udid and serial
  // come first, every record needs them); this sets the rest of it.
  fill(info, _reading, { identity }) {
    info.platformVersion = identity.platformVersion;
    info.modelName = identity.modelName;
    info.brandName = identity.brandName;
    info.cpuArchitecture = identity.cpuArchitecture;
    info.isEmulator = identity.isEmulator;
  },
};

export const deviceName: Probe<string> = {
  section: 'device_name',
  tier: 'slow',
  command: 't settings get global device_name',
  fields: ['deviceName'],
  note: 'user-set device name',
  parse: parseSettingText,
  // The user-set name first, then the Bluetooth name, the vendor's marketing name, the model.
  fill(info, reading, ctx) {
    info.deviceName = reading ?? ctx.read(bluetoothName) ?? ctx.identity.marketingName ?? ctx.identity.modelName;
  },
};

export const bluetoothName: Probe<string> = {
  section: 'bluetooth_name',
  tier: 'slow',
  command: 't settings get secure bluetooth_name',
  fields: ['deviceName'],
  note: 'device name where no device_name is set',
  // Read by the device_name probe, which owns the field.
  parse: parseSettingText,
};

export const id: Probe<number> = {
  section: 'id',
  tier: 'slow',
  command: 'id',
  fields: ['isRooted'],
  note: 'adbd running as root (uid 0)',
  parse: parseIdUid,
  // Rooted: an su binary is present, or adbd runs as uid 0. ro.secure=0 alone is no evidence: some vendor builds set it
  // and still give adb a uid 2000 shell.
  fill(info, uid, ctx) {
    info.isRooted = rootVerdict(ctx.read(su), uid);
  },
};

/** true on evidence of root, false when both probes answered without it, else unknown. */
export function rootVerdict(suPresent: boolean | undefined, uid: number | undefined) {
  if (suPresent === true || uid === 0) return true;
  if (suPresent === false && uid !== undefined) return false;
}

export const su: Probe<boolean> = {
  section: 'su',
  tier: 'slow',
  command: `ls -l ${SU_PATHS.join(' ')}`,
  fields: ['isRooted'],
  note: 'su binaries in the usual places',
  // Read by the id probe, which owns isRooted.
  parse: parseSuListing,
};

// The kernel's page size (4 or 16 KB: Android 15 and later phones may boot a
// 16 KB kernel), an inventory fact the cloud's DeviceInfo has no field for:
// `list --json` shows it (pageSizeBytes). Fixed while the phone stays booted,
// so read once per connection, never on the periodic cycle.
export const pageSize: Probe<number> = {
  section: 'page_size',
  tier: 'connection',
  command: 'getconf PAGE_SIZE',
  fields: [],
  note: "the kernel's memory page size (16 KB kernels from Android 15): feeds no field, `list --json` shows it",
  parse: parsePageSize,
};

// Advanced Protection (Android 16): under it a locked phone takes a new USB
// connection as charge-only, so recovery must not power-cycle its port
// (parsers/advanced-protection.ts). Only a phone of SDK 36 or later runs the
// settings command; an older one prints one line and costs nothing more.
// Slow tier: it changes when someone turns it on or off in Settings.
export const advancedProtection: Probe<AdvancedProtection> = {
  section: 'advanced_protection',
  tier: 'slow',
  command:
    'case "$(getprop ro.build.version.sdk)" in 3[6-9]|[4-9][0-9]) echo sdk:36+; t settings get secure advanced_protection_mode;; *) echo sdk:older;; esac',
  fields: [],
  note: 'Advanced Protection on or off (Android 16), for recovery: feeds no field',
  parse: parseAdvancedProtection,
};

const BROWSER_PACKAGES = new Set(Object.keys(BROWSERS));

export const packages: Probe<Set<string>> = {
  section: 'packages',
  tier: 'slow',
  command: 't pm list packages',
  fields: ['installedBrowsers'],
  // A failed or interrupted `pm` (no package: lines) is not "no browsers".
  good: (text) => /^package:[A-Za-z0-9_.]+\s*$/m.test(text),
  // The browsers, plus one other package so that a device without any
  // browser still reads as "none" rather than as a failed pm.
  shrink: (text) => {
    const all = [...parsePackages(text)];
    const kept = all.filter((pkg) => BROWSER_PACKAGES.has(pkg));
    const other = all.find((pkg) => !BROWSER_PACKAGES.has(pkg));
    if (other !== undefined) kept.push(other);
    return kept.map((pkg) => `package:${pkg}`).join('\n');
  },
  note: 'installed browsers',
  parse: (text) => {
    const all = parsePackages(text);
    // An empty list from a failed `pm` is not "no browsers".
    return all.size === 0 ? undefined : all;
  },
  fill(info, all) {
    if (all) info.installedBrowsers = installedBrowsers(all);
  },
};
