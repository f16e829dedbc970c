// Every platform, registered in one place: adding one is a folder beside src/platforms/android/ and ios/ with a
// DeviceSource, and a line here.
import type { Settings } from '../config/schema.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { Platform } from '../devices/record.js';
import type { DeviceInfo } from '../cloud/types.js';
import type { Logger } from '../log/logger.js';
import type { Clock, Timers } from '../util/clock.js';
import { AdbClient } from '../platforms/android/adb/client.js';
import { resolveAdbServer } from '../platforms/android/adb/server-address.js';
import { DeviceProber } from '../platforms/android/inventory/probe.js';
import { AdbServerHealth } from '../platforms/android/adb/server-health.js';
import { AndroidSource } from '../platforms/android/source.js';
import { registryTierStore } from '../platforms/android/inventory/tier-store.js';
import { notReadyDeviceInfo } from '../platforms/android/inventory/assemble.js';
import { AndroidControl } from '../platforms/android/control.js';
import { iosSource } from '../platforms/ios/setup.js';
import type { DeviceSource, PlatformName } from '../platforms/source.js';
import { ANDROID_NAME } from '../platforms/android/name.js';
import { IOS_NAME } from '../platforms/ios/name.js';
import { ANDROID_READINESS } from '../platforms/android/readiness.js';
import { ANDROID_FACTS } from '../platforms/android/facts.js';
import type { WearReader } from '../platforms/wear.js';
import { ANDROID_WEAR } from '../platforms/android/wear.js';
import { IOS_WEAR_READER } from '../platforms/ios/wear.js';
import { ADB_DOCTOR } from '../platforms/android/doctor.js';
import type { PlatformVariables } from '../config/variables.js';
import { ADB_REFERENCE, ADB_VARIABLES } from '../platforms/android/adb/variables.js';

export interface Platforms {
  /** Every source, in report order. */
  sources: DeviceSource[];
  /** Every platform's names, whether its source runs or not (a device an earlier run reported is still shown by name). */
  names: readonly PlatformName[];
  /** The platform whose every listed device `list` shows in every state, and how one that has not answered is described. */
  unready: { platform: Platform; describe(serial: string, state: string, udid?: string): DeviceInfo };
  /** The door through which the features' actions reach the phones: it names their platform. */
  control: AndroidControl;
  /** The platforms' service clients the doctor checks beyond the sources, the same ones the sources use. */
  services: { adb: AdbClient };
}

/** Every platform's names, whether its source runs or not. */
export const platformNames: readonly PlatformName[] = [ANDROID_NAME, IOS_NAME];

/** The platform that offers the readiness capability: readiness judges what it reads, and names no platform. */
export const readinessReader = ANDROID_READINESS;

/**
 * What the platforms read of a device that no DeviceInfo field carries (src/platforms/facts.ts):
 * the page size the rows show, Advanced Protection for recovery, the authorization window for its lapse warning.
 * Android reads them; an iPhone's record has none of them, so each is unknown for it.
 */
export const platformFacts = ANDROID_FACTS;

/**
 * The platforms that offer the wear capability (src/platforms/wear.ts): the
 * first that read a device answers for it, so the wear feature names none.
 */
export const wearReader: WearReader = {
  reading: (registry, key) => [ANDROID_WEAR, IOS_WEAR_READER].map((r) => r.reading(registry, key)).find((r) => r !== undefined),
};

/** What the platform whose service doctor checks offers it (errors, variables, banner, phone outputs), known before any build. */
export const serviceDoctor = ADB_DOCTOR;

/** The variables the platforms' services read as their own tools do, with the reference's section on each. */
export const platformVariables = { variables: ADB_VARIABLES, sections: ADB_REFERENCE } as const satisfies PlatformVariables;

/** A variable a platform's service reads. */
export type PlatformVariableName = keyof typeof ADB_VARIABLES;

/** Each platform's service address, read before anything is built: throws the ConfigError of one that cannot be used. */
export function checkServiceAddresses(env: NodeJS.ProcessEnv, settings: Pick<Settings, 'adbServerSocket'> | undefined) {
  resolveAdbServer(env, settings?.adbServerSocket);
}

export function buildPlatforms(settings: Settings, env: NodeJS.ProcessEnv, logger: Logger, registry: DeviceRegistry, clock: Clock & Timers): Platforms {
  const adb = new AdbClient(resolveAdbServer(env, settings.adbServerSocket));
  const prober = new DeviceProber(adb, {
    timeoutMs: settings.probeTimeoutSeconds * 1000,
    slowFactsRefreshSeconds: settings.slowFactsRefreshSeconds,
    config: {
      addedToCloud: settings.addedToCloud,
      support: settings.support,
      reachabilityHost: reachabilityHost(settings),
    },
    now: () => clock.monotonic(),
    wall: () => clock.wall(),
    store: registryTierStore(registry),
  });
  const android = new AndroidSource({
    adb,
    prober,
    registry,
    logger,
    clock,
    concurrency: settings.probeConcurrency,
    // A probe past its own deadline is being torn down: no report waits longer than that.
    reportWait: { idleMs: REPORT_IDLE_MS, maxMs: settings.probeTimeoutSeconds * 1000 + 1000 },
    reconcileMs: settings.reconcileSeconds * 1000,
    server: new AdbServerHealth({ adb, clock, logger }),
    networkDevices: settings.networkDevices,
  });
  const ios = iosSource(settings, env, logger, registry, clock);
  return {
    sources: ios ? [android, ios] : [android],
    names: platformNames,
    unready: { platform: android.platform, describe: notReadyDeviceInfo },
    control: new AndroidControl(adb),
    services: { adb },
  };
}

/**
 * How long a report waits for the next inventory it asked for: past it, a device still answering is reported with its
 * last good inventory, so one slow phone holds a report back by this at most.
 */
export const REPORT_IDLE_MS = 3_000;

/** The host devices should reach: configured, else the cloud's own host. */
function reachabilityHost(settings: Settings) {
  if (settings.reachabilityHost) return settings.reachabilityHost;
  if (!settings.baseUrl) return undefined;
  try {
    return new URL(settings.baseUrl).hostname || undefined;
  } catch {
    return undefined;
  }
}
