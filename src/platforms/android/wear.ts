// What the Android platform offers the wear feature (the capability of
// src/platforms/wear.ts): the wear sections its inventory already read on the
// current connection (probes/wear.ts), parsed. Reads the tier cache, opens no
// session. Samsung's own figures come with the battery section of every
// inventory (dumpsys battery's mSavedBattery* lines), which the report
// carries beside the battery (DeviceInfo.batteryDetail): the feature takes
// them from there.
import type { BatteryWear, WearReader, WearReading } from '../wear.js';
import { wearFiles, wearPackages, wearTradeIn } from './inventory/probes/wear.js';
import { cachedSection } from './inventory/tier-store.js';

export const ANDROID_WEAR: WearReader = {
  reading: (registry, key) => {
    const [files, packages, tradeIn] = [wearFiles, wearPackages, wearTradeIn].map((probe) => cachedSection(registry, key, probe.section));
    if (files === undefined && packages === undefined && tradeIn === undefined) return undefined;
    const f = files === undefined ? undefined : wearFiles.parse(files);
    const p = packages === undefined ? undefined : wearPackages.parse(packages);
    const t = tradeIn === undefined ? undefined : wearTradeIn.parse(tradeIn);
    // The trade-in report first: it is what Android itself tells of its battery (the health HAL's
    // figures); the kernel's gauge second.
    const batteries = [t?.battery, f?.battery].filter((b): b is BatteryWear => b !== undefined);
    const storage = t?.storage ?? f?.storage;
    const reading: WearReading = {
      batteries,
      ...(storage && { storage }),
      ...(p?.apps && { apps: p.apps }),
      ...(p?.thirdParty && { thirdParty: p.thirdParty }),
      ...(f?.tmp && { tmp: f.tmp }),
      unread: [...(f?.unread ?? []), ...(p?.unread ?? []), ...(t?.unread ?? [])],
    };
    return reading;
  },
};
