import { AdbClient } from '../platforms/android/adb/client.js';
import { resolveAdbServer } from '../platforms/android/adb/server-address.js';
import { CloudClient } from '../cloud/client.js';
import type { Credentials } from '../config/credentials.js';
import type { Settings } from '../config/schema.js';
import { DeviceProber } from '../platforms/android/inventory/probe.js';
import type { Logger } from '../log/logger.js';
import { buildNumber } from '../machine/build-number.js';
import { MachineCollector } from '../machine/collector.js';
import { agentVersion, projectRoot } from '../util/package.js';
import { InventoryCollector } from './collector.js';
import { AgentStats } from './stats.js';
import { ReportedStore } from '../report/reported-store.js';
import { UnpluggedLedger } from '../report/unplugged.js';
import { stateDirOf } from '../config/node-id.js';
import { join } from 'node:path';
import type { LongDevice } from '../platforms/android/adb/devices-long.js';
import type { DeviceInfo } from '../cloud/types.js';
import { HealthMonitor } from '../health/monitor.js';
import type { RowContext } from '../status/device-rows.js';

/** The pieces every command shares, wired from the settings. Nothing here does I/O yet. */
export interface Parts {
  settings: Settings;
  logger: Logger;
  adb: AdbClient;
  prober: DeviceProber;
  collector: InventoryCollector;
  machine: MachineCollector;
  stats: AgentStats;
  unplugged: UnpluggedLedger;
  /** The device set last reported, kept across restarts (no ghosts). */
  reported: ReportedStore;
  health: HealthMonitor;
}

export function buildParts(settings: Settings, env: NodeJS.ProcessEnv, logger: Logger): Parts {
  const adb = new AdbClient(resolveAdbServer(env, settings.adbServerSocket));
  const prober = new DeviceProber(adb, {
    timeoutMs: settings.probeTimeoutSeconds * 1000,
    slowFactsRefreshSeconds: settings.slowFactsRefreshSeconds,
    hiddenDevices: settings.hiddenDevices,
    logger,
    config: {
      isHidden: false,
      addedToCloud: settings.addedToCloud,
      support: settings.support,
      reachabilityHost: reachabilityHost(settings),
    },
  });
  return {
    settings,
    logger,
    adb,
    prober,
    // A probe past its own deadline is being torn down: the report waits no longer than that.
    collector: new InventoryCollector(prober, { concurrency: settings.probeConcurrency, waitMs: settings.probeTimeoutSeconds * 1000 + 1000, logger }),
    machine: new MachineCollector({ version: agentVersion, buildNumber: buildNumber(projectRoot, agentVersion, env) }),
    stats: new AgentStats(),
    unplugged: new UnpluggedLedger(),
    reported: new ReportedStore(join(stateDirOf(settings, env), 'reported-devices.json'), logger),
    health: new HealthMonitor(settings.health, logger),
  };
}

/** The health rules applied to collected devices, with the collector's count of unanswered inventories. */
export function checkHealth(parts: Parts, infos: readonly DeviceInfo[]): DeviceInfo[] {
  const { collector, health } = parts;
  return health.apply(infos, (udid) => collector.failures(collector.serialOf(udid) ?? udid));
}

/** What device rows (list, metrics) read beside the report's devices. */
export function rowContext(
  parts: Parts,
  topology: ReadonlyMap<string, LongDevice>,
  iphoneInventoriedAt: (udid: string) => number | undefined = () => undefined,
): RowContext {
  const { collector, health } = parts;
  return {
    serialOf: (udid) => collector.serialOf(udid),
    topology,
    problems: (udid) => health.problems(udid),
    inventoriedAt: (serial, udid) => collector.inventoriedAt(serial) ?? iphoneInventoriedAt(udid),
    failures: (serial) => collector.failures(serial),
  };
}

export function cloudClient(settings: Settings, credentials: Credentials, logger: Logger): CloudClient {
  return new CloudClient({
    baseUrl: settings.baseUrl,
    username: credentials.username,
    apiKey: credentials.apiKey,
    requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
    userAgent: `device-agent/${agentVersion}`,
    logger,
  });
}

/** The host devices should reach: configured, else the cloud's own host. */
function reachabilityHost(settings: Settings): string | undefined {
  if (settings.reachabilityHost) return settings.reachabilityHost;
  if (!settings.baseUrl) return undefined;
  try {
    return new URL(settings.baseUrl).hostname || undefined;
  } catch {
    return undefined;
  }
}
