// The wear sections as a phone's script prints them (src/platforms/android/
// inventory/probes/wear.ts), built from per-file recordings: each supply's
// uevent cut to the lines `keep` passes, cat's error for a file the phone
// lacks or denies, the life-time files, the counted /data/local/tmp.
import { readFileSync } from 'node:fs';
import { POWER_SUPPLIES } from '../../../src/platforms/android/inventory/parsers/wear-files.js';
import type { Profile } from '../../sim/profile.js';

export const fixture = (name: string): string => readFileSync(new URL(`fixtures/${name}`, import.meta.url), 'utf8');

type Supply = (typeof POWER_SUPPLIES)[number];
/** A uevent's text, or what cat says when the file is not there or not readable. */
export type FileRead = string | { error: 'absent' | 'denied' };

const KEPT = [/^supply:/, /^POWER_SUPPLY_CYCLE_COUNT=/, /^POWER_SUPPLY_CHARGE_FULL=/, /^POWER_SUPPLY_CHARGE_FULL_DESIGN=/, /\/uevent: /];

function catError(path: string, error: 'absent' | 'denied'): string {
  return `cat: ${path}: ${error === 'absent' ? 'No such file or directory' : 'Permission denied'}`;
}

export interface FilesSection {
  supplies?: Partial<Record<Supply, FileRead>>;
  life?: Partial<Record<'emmc' | 'emmc_eol' | 'ufs_a' | 'ufs_b', FileRead>>;
  /** Entries of /data/local/tmp and ls's exit status; du's total in KiB. */
  tmp?: { entries: number; status?: number; kib?: number };
}

export function wearFilesSection(s: FilesSection): string {
  const lines: string[] = [];
  for (const name of POWER_SUPPLIES) {
    const path = `/sys/class/power_supply/${name}/uevent`;
    const read = s.supplies?.[name] ?? { error: 'absent' };
    const out = [`supply:${name}`, ...(typeof read === 'string' ? read.replace(/\n$/, '').split('\n') : [catError(path, read.error)])];
    lines.push(...out.filter((l) => KEPT.some((k) => k.test(l))));
  }
  for (const name of ['emmc', 'emmc_eol', 'ufs_a', 'ufs_b'] as const) {
    const read = s.life?.[name] ?? { error: 'absent' };
    lines.push(`life:${name}=${typeof read === 'string' ? read.trim() : catError(`/sys/${name}`, read.error)}`);
  }
  const tmp = s.tmp ?? { entries: 0 };
  lines.push(`tmp_entries:${tmp.entries} ls_status:${tmp.status ?? 0}`);
  if (tmp.kib !== undefined) lines.push(`${tmp.kib}\t/data/local/tmp`);
  return lines.join('\n') + '\n';
}

/** The packages section: the listing's lines and the status line the script appends. */
export function wearPackagesSection(listing: string, status = 0): string {
  return `${listing.replace(/\n$/, '')}\npm_status:${status}\n`;
}

/**
 * A copy of a simulated phone's profile that answers the wear section's
 * commands with these outputs: each supply's uevent, `tradeinmode getstatus`,
 * the third-party listing with uids, and /data/local/tmp. The phone's
 * identity stays the profile's; the outputs are the recordings named in
 * fixtures/SOURCES.md (another phone's, where a test says so). Commands not
 * given answer as a phone without them: cat's "No such file or directory",
 * the shell's "not found".
 */
export function withWear(
  profile: Profile,
  wear: { supplies?: Partial<Record<Supply, string>>; tradeIn?: string; packages?: string; tmp?: { names: string[]; kib: number } },
): Profile {
  const commands = new Map(profile.commands);
  for (const [name, text] of Object.entries(wear.supplies ?? {})) commands.set(`cat /sys/class/power_supply/${name}/uevent`, { output: text, exitCode: 0 });
  if (wear.tradeIn !== undefined) commands.set('tradeinmode getstatus', { output: wear.tradeIn, exitCode: 0 });
  if (wear.packages !== undefined) commands.set('pm list packages -3 -U --user 0', { output: wear.packages, exitCode: 0 });
  if (wear.tmp) {
    commands.set('ls -a /data/local/tmp', { output: ['.', '..', ...wear.tmp.names].join('\n') + '\n', exitCode: 0 });
    commands.set('du -sk /data/local/tmp', { output: `${wear.tmp.kib}\t/data/local/tmp\n`, exitCode: 0 });
  }
  const fallbacks = new Map(profile.fallbacks);
  if (!fallbacks.has('cat')) fallbacks.set('cat', { template: 'cat: {arg}: No such file or directory', exitCode: 1 });
  return { ...profile, commands, fallbacks };
}
