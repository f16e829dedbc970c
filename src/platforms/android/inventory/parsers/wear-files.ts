// Parses the wear_files section (probes/wear.ts): what the kernel tells of a
// phone's wear through sysfs, as the shell user reads it, and the leftovers
// of /data/local/tmp. Pure. The catalogue, from the kernel's sources:
//
// - power_supply's uevent (drivers/power/supply/power_supply_sysfs.c,
//   power_supply_uevent): one `POWER_SUPPLY_<PROP>=<value>` line per property
//   the driver has; CYCLE_COUNT a count, CHARGE_FULL and CHARGE_FULL_DESIGN
//   in µAh (Documentation/ABI/testing/sysfs-class-power). Some Qualcomm
//   drivers print mAh (a `qpnp-bms` uevent with CHARGE_FULL_DESIGN=2350), so
//   the unit is told by the size: a phone's cell holds 500-20,000 mAh. The
//   section reads the four supplies Google's lab server reads a cycle count
//   from (battery, bms, maxfg, max77779fg); a supply the phone does not have
//   prints cat's "No such file or directory", one the shell may not read
//   "Permission denied". A laptop-style gauge that never counts prints
//   CYCLE_COUNT=0: a reading of 0, which no forecast can be drawn from.
// - eMMC (drivers/mmc/core/mmc.c): `life_time` "0x%02x 0x%02x" (the JEDEC
//   Device Life Time Estimation of type A and B memory: 0x01 is 0-10 % of
//   the rated life used, each step 10 % more, 0x0B past it, 0x00 not
//   defined) and `pre_eol_info` "0x%02x" (0x01 normal, 0x02 warning: 80 % of
//   the reserved blocks consumed, 0x03 urgent: 90 %).
// - UFS (drivers/ufs/core/ufs-sysfs.c, health_descriptor): the same life
//   time estimations, one a file, "0x%02X".
// - /data/local/tmp: `ls -a` counted on the phone (names are the device's
//   words: only their number leaves it) and `du -sk`'s total.
import { cycleCountOf, plausibleMah, type BatteryWear, type StorageWear, type Unread } from '../../../wear.js';
import { dropUndefined } from '../../../../util/drop-undefined.js';

/** The supplies read, in the order Google's lab server tries them. */
export const POWER_SUPPLIES = ['battery', 'bms', 'maxfg', 'max77779fg'] as const;

export interface WearFiles {
  /** The supply whose figures count: the first with a cycle count or both capacities. */
  battery?: BatteryWear;
  storage?: StorageWear;
  tmp?: { entries?: number; kib?: number };
  unread: Unread[];
}

interface Supply {
  cycleCount?: number;
  full?: number;
  design?: number;
  error?: Unread['why'];
  garbage?: boolean;
}

export function parseWearFiles(text: string) {
  const supplies = new Map<string, Supply>();
  const life = new Map<string, string>();
  let supply: Supply | undefined;
  let tmpEntries: number | undefined;
  let tmpRead: boolean | undefined;
  let kib: number | undefined;
  for (const raw of text.replace(/\r/g, '').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('supply:')) {
      const name = line.slice('supply:'.length);
      supply = (POWER_SUPPLIES as readonly string[]).includes(name) && !supplies.has(name) ? {} : undefined;
      if (supply) supplies.set(name, supply);
      continue;
    }
    if (line.startsWith('life:')) {
      const at = line.indexOf('=');
      if (at > 0 && !life.has(line.slice(5, at))) life.set(line.slice(5, at), line.slice(at + 1).trim());
      continue;
    }
    const tmp = /^tmp_entries:(\d+) ls_status:(\d+)$/.exec(line);
    if (tmp) {
      // The last such line counts: a file named like it is listed before ls's own status.
      tmpRead = tmp[2] === '0';
      tmpEntries = tmpRead ? Number(tmp[1]) : undefined;
      continue;
    }
    const du = /^(\d+)\s+\/data\/local\/tmp\/?$/.exec(line);
    if (du) {
      kib = safe(du[1]!);
      continue;
    }
    if (!supply) continue;
    const prop = /^POWER_SUPPLY_(CYCLE_COUNT|CHARGE_FULL|CHARGE_FULL_DESIGN)=(.*)$/.exec(line);
    if (prop) {
      const value = /^-?\d+$/.test(prop[2]!) ? safe(prop[2]!) : undefined;
      if (value === undefined) supply.garbage = true;
      else if (prop[1] === 'CYCLE_COUNT') supply.cycleCount ??= value;
      else if (prop[1] === 'CHARGE_FULL') supply.full ??= value;
      else supply.design ??= value;
      continue;
    }
    if (/uevent: /.test(line)) supply.error = errorOf(line);
  }
  const unread: Unread[] = [];
  const battery = batteryOf(supplies, unread);
  const storage = storageOf(life, unread);
  if (tmpRead === false) unread.push({ what: '/data/local/tmp', why: 'unreadable' });
  const tmp = tmpEntries === undefined && kib === undefined ? undefined : dropUndefined({ entries: tmpEntries, kib });
  return { ...(battery && { battery }), ...(storage && { storage }), ...(tmp && { tmp }), unread };
}

function batteryOf(supplies: Map<string, Supply>, unread: Unread[]) {
  let cycles: number | undefined;
  let capacity: { full: number; design: number } | undefined;
  const whys = new Set<Unread['why']>();
  for (const name of POWER_SUPPLIES) {
    const s = supplies.get(name);
    if (!s) continue;
    if (s.error) whys.add(s.error);
    if (s.garbage) whys.add('garbage');
    const count = cycleCountOf(s.cycleCount);
    if (s.cycleCount !== undefined && count === undefined) whys.add('garbage');
    cycles ??= count;
    if (capacity === undefined && s.full !== undefined && s.design !== undefined) {
      capacity = capacityOf(s.full, s.design);
      if (!capacity) whys.add('garbage');
    }
  }
  if (cycles === undefined && capacity === undefined) {
    // Nothing at all: the phone has none of the supplies (absent), or none it lets the shell read.
    const why = whys.has('garbage') ? 'garbage' : whys.has('unreadable') ? 'unreadable' : 'absent';
    if (supplies.size > 0) unread.push({ what: 'power_supply', why });
    return undefined;
  }
  return dropUndefined({
    source: 'sysfs' as const,
    cycleCount: cycles,
    ...(capacity && { fullMah: capacity.full, designMah: capacity.design, healthPercent: Math.round((capacity.full / capacity.design) * 100) }),
  });
}

/**
 * Full and design capacities in mAh, or undefined when they are not a
 * phone's (plausibleMah): the unit is told by the design figure (µAh from
 * 500,000, else mAh).
 */
export function capacityOf(full: number, design: number) {
  const scale = design >= 500_000 && design <= 20_000_000 ? 1000 : 1;
  const f = full / scale;
  const d = design / scale;
  return plausibleMah(f, d) ? { full: Math.round(f), design: Math.round(d) } : undefined;
}

function storageOf(life: Map<string, string>, unread: Unread[]): StorageWear | undefined {
  const emmc = life.get('emmc');
  const eol = life.get('emmc_eol');
  const ufsA = life.get('ufs_a');
  const ufsB = life.get('ufs_b');
  if (emmc === undefined && ufsA === undefined) return undefined;
  const emmcBands = emmc === undefined ? undefined : /^0x([0-9a-fA-F]{2}) 0x([0-9a-fA-F]{2})$/.exec(emmc);
  if (emmcBands) {
    const used = lifeUsed([emmcBands[1]!, emmcBands[2]!]);
    const preEol = eolOf(eol);
    if (used !== undefined || preEol !== undefined) return dropUndefined({ source: 'emmc' as const, lifeUsedPercent: used, preEol });
  }
  const ufs = [ufsA, ufsB].map((v) => /^0x([0-9a-fA-F]{2})$/.exec(v ?? '')?.[1]).filter((v) => v !== undefined);
  const used = lifeUsed(ufs);
  if (used !== undefined) return { source: 'ufs', lifeUsedPercent: used };
  const texts = [emmc, ufsA].filter((v) => v !== undefined);
  const why = texts.some((t) => /Permission denied/.test(t)) ? 'unreadable' : texts.every((t) => /No such file or directory/.test(t)) ? 'absent' : 'garbage';
  unread.push({ what: 'storage life', why });
  return undefined;
}

/** The worst of the estimations given, as the upper end of its band (0x01: up to 10 %); 0x00 (not defined) and values past 0x0B read nothing. */
function lifeUsed(bands: readonly string[]) {
  const steps = bands.map((b) => parseInt(b, 16)).filter((n) => n >= 1 && n <= 0x0b);
  return steps.length === 0 ? undefined : Math.min(100, Math.max(...steps) * 10);
}

function eolOf(text: string | undefined) {
  const m = /^0x0([123])$/.exec(text ?? '');
  return m ? (['normal', 'warning', 'urgent'] as const)[Number(m[1]) - 1] : undefined;
}

function errorOf(line: string) {
  if (/Permission denied/.test(line)) return 'unreadable';
  if (/No such file or directory/.test(line)) return 'absent';
  return 'garbage';
}

function safe(digits: string) {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : undefined;
}
