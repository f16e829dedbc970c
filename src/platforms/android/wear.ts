// What the Android platform offers the wear feature (the capability of
// src/platforms/wear.ts): the wear sections its inventory already read on the
// current connection (probes/wear.ts), parsed. Reads the tier cache, opens no
// session. Samsung's own figures come with the battery section of every
// inventory (dumpsys battery's mSavedBattery* lines), which the report
// carries beside the battery (DeviceInfo.batteryDetail): the feature takes
// them from there. The doctor reads the same sections in its one shell per
// phone (WEAR_COMMAND).
import type { WearReader } from '../wear.js';
import { wearFiles, wearPackages, wearTradeIn } from './inventory/probes/wear.js';
import { buildInventoryScript, splitSections } from './inventory/script.js';
import { cachedSection } from './inventory/tier-store.js';

const PROBES = [wearFiles, wearPackages, wearTradeIn] as const;

/** The wear sections' texts (by section name) as one reading; undefined when none was read. */
function wearReadingOf(texts: (section: string) => string | undefined) {
  const [files, packages, tradeIn] = PROBES.map((probe) => texts(probe.section));
  if (files === undefined && packages === undefined && tradeIn === undefined) return undefined;
  const f = files === undefined ? undefined : wearFiles.parse(files);
  const p = packages === undefined ? undefined : wearPackages.parse(packages);
  const t = tradeIn === undefined ? undefined : wearTradeIn.parse(tradeIn);
  // The trade-in report first: it is what Android itself tells of its battery (the health HAL's
  // figures); the kernel's gauge second.
  const batteries = [t?.battery, f?.battery].filter((b) => b !== undefined);
  const storage = t?.storage ?? f?.storage;
  return {
    batteries,
    ...(storage && { storage }),
    ...(p?.apps && { apps: p.apps }),
    ...(p?.thirdParty && { thirdParty: p.thirdParty }),
    ...(f?.tmp && { tmp: f.tmp }),
    unread: [...(f?.unread ?? []), ...(p?.unread ?? []), ...(t?.unread ?? [])],
  };
}

export const ANDROID_WEAR: WearReader = {
  reading: (registry, key) => wearReadingOf((section) => cachedSection(registry, key, section)),
};

/** The wear sections as the inventory runs them, for the doctor's one shell. */
export const WEAR_COMMAND = buildInventoryScript({ tiers: [], sections: PROBES.map((p) => p.section) });

/** The wear reading of a doctor's output that ran WEAR_COMMAND (its sections found by their markers); undefined when none is there. */
export function wearOfOutput(output: string) {
  const { sections } = splitSections(output);
  return wearReadingOf((section) => sections.get(section));
}
