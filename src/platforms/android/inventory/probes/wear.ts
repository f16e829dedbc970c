import { parseWearFiles, POWER_SUPPLIES, type WearFiles } from '../parsers/wear-files.js';
import { parseWearPackages, type WearPackages } from '../parsers/wear-packages.js';
import { parseWearTradeIn, shrinkTradeIn, type WearTradeIn } from '../parsers/wear-tradein.js';
import type { Probe } from './types.js';

// The wear readings (src/features/wear/), one section per source a slow
// phone gathers on its own: the kernel's sysfs figures and /data/local/tmp
// (instant reads), the package manager's third-party list with uids, and
// Android 16's trade-in report. They feed no DeviceInfo field: the wear
// feature reads the cached sections through src/platforms/android/wear.ts.
// On the slow tier: wear moves over days, never between two periodic
// inventories, so the periodic cycle reads none of them. No `good`, as for
// readiness: a phone whose source fails for good would be asked for it
// forever; a failed read is unread, never worn.
const NOTE = 'wear (src/features/wear/): feeds no field';

const SUPPLY = '/sys/class/power_supply/$d/uevent';
const KEEP_SUPPLY = "'supply:*' 'POWER_SUPPLY_CYCLE_COUNT=*' 'POWER_SUPPLY_CHARGE_FULL=*' 'POWER_SUPPLY_CHARGE_FULL_DESIGN=*' '*/uevent: *'";
/** The UFS host's health descriptor, reached from its SCSI host (ufs-sysfs.c hangs it on the host controller). */
const UFS = '/sys/class/scsi_host/host0/device/../health_descriptor';
const LIFE = [
  ['emmc', '/sys/block/mmcblk0/device/life_time'],
  ['emmc_eol', '/sys/block/mmcblk0/device/pre_eol_info'],
  ['ufs_a', `${UFS}/life_time_estimation_a`],
  ['ufs_b', `${UFS}/life_time_estimation_b`],
] as const;

export const wearFiles: Probe<WearFiles> = {
  section: 'wear_files',
  tier: 'slow',
  command: [
    `for d in ${POWER_SUPPLIES.join(' ')}; do echo "supply:$d"; cat ${SUPPLY}; done 2>&1 | keep ${KEEP_SUPPLY}`,
    ...LIFE.map(([name, path]) => `echo "life:${name}=$(cat ${path} 2>&1)"`),
    // Only the number of entries leaves the phone: their names are whatever a test wrote there.
    '{ ls -a /data/local/tmp; echo "ls_status:$?"; } 2>&1 | { n=0; while IFS= read -r l; do case $l in ls_status:*) echo "tmp_entries:$n $l";; .|..) ;; *) n=$((n+1));; esac; done; }',
    "du -sk /data/local/tmp 2>&1 | keep '*/data/local/tmp'",
  ].join('; '),
  fields: [],
  note: NOTE,
  parse: parseWearFiles,
};

/** Package lines a phone's cached listing keeps at most: a test farm phone with thousands of leftovers costs its cache no more. */
export const MAX_KEPT_PACKAGES = 2000;

export const wearPackages: Probe<WearPackages> = {
  section: 'wear_packages',
  tier: 'slow',
  // What the cache keeps: the package lines, the largest app id's first (so the limit never drops it), and the status line.
  shrink: (text) => {
    const lines = text.replace(/\r/g, '').split('\n');
    const packages = lines.filter((l) => l.startsWith('package:'));
    const appId = (l: string) =>
      Math.max(
        0,
        ...(/uid:([0-9,]+)/
          .exec(l)?.[1]
          ?.split(',')
          .map((u) => Number(u) % 100_000) ?? [0]),
      );
    const top = packages.reduce<string | undefined>((best, l) => (best === undefined || appId(l) > appId(best) ? l : best), undefined);
    const kept = [...(top ? [top] : []), ...packages.filter((l) => l !== top)].slice(0, MAX_KEPT_PACKAGES);
    return [...kept, ...lines.filter((l) => l.startsWith('pm_status:') || l === 'Error: Unknown option: -U')].join('\n') + '\n';
  },
  // -U before Android 8 is an error that Android 7's cmd exits 0 on: the list is asked again without it.
  command:
    'o=$(t pm list packages -3 -U --user 0 2>&1); s=$?; case $o in *package:*) echo "$o";; *) echo "$o"; o=$(t pm list packages -3 2>&1); s=$?; echo "$o";; esac; echo "pm_status:$s"',
  fields: [],
  note: NOTE,
  parse: parseWearPackages,
};

export const wearTradeIn: Probe<WearTradeIn> = {
  section: 'wear_tradein',
  tier: 'slow',
  command: 't tradeinmode getstatus',
  fields: [],
  note: NOTE,
  shrink: shrinkTradeIn,
  parse: parseWearTradeIn,
};
