// The one factory of the object graph: `run`, `once`, `list` and `doctor`
// build their parts here, from the settings, and nothing does I/O yet.
import { dirname, join } from 'node:path';
import { CloudClient } from '../cloud/client.js';
import type { BookingStatusSource } from '../cloud/booking-status.js';
import type { RetryPolicy } from '../cloud/retry.js';
import { cloudNetwork } from '../cloud/network.js';
import { LOOPBACK_DIRECT, routeFor, type ProxyPlan } from '../cloud/proxy/route.js';
import type { Credentials } from '../config/credentials.js';
import { stateDirOf } from '../config/node-id.js';
import type { Settings } from '../config/schema.js';
import { DeviceRegistry } from '../devices/registry.js';
import { answeredAll, featureMetrics } from '../devices/feature.js';
import { FlapLog } from '../devices/flap-log.js';
import { hostHeatOf } from '../health/host-heat-feature.js';
import type { Logger } from '../log/logger.js';
import { carryClock } from '../log/limited.js';
import { StateDirTrouble } from '../log/state-dir-trouble.js';
import { buildNumber } from '../machine/build-number.js';
import { MachineCollector } from '../machine/collector.js';
import { buildPlatforms, platformFacts, platformNames, type Platforms } from './platforms.js';
import { buildFeatures, type Features } from './features.js';
import { UsbLayer } from '../features/usb/layer.js';
import { OFF_SOURCE } from '../devices/off-source.js';
import type { UsbEvidence } from '../devices/usb-evidence.js';
import { ReportedStore } from '../report/reported-store.js';
import { PausedPortsFile } from '../actions/charge/paused-ports.js';
import { PowerPaths, uncutPortsFile } from '../actions/charge/power-paths.js';
import { DeviceMapping } from '../actions/device-mapping.js';
import { hubPortsOf } from '../config/hub-ports.js';
import { chargeWaysOf } from '../config/charge-ways.js';
import { Reporter, type ReportSink } from '../report/reporter.js';
import { UnpluggedLedger } from '../report/unplugged.js';
import { AgentStats } from '../stats/agent-stats.js';
import { systemClock, type Clock, type Timers } from '../util/clock.js';
import { agentVersion, projectRoot } from '../util/package.js';
import { StatusServer } from '../status/server.js';
import { STATUS_STATE_FILE } from '../status/endpoint-state.js';
import { StatusViews } from '../status/views.js';
import { Agent } from './agent.js';
import { buildActions } from './actions.js';
import { ReportLoop } from './report-loop.js';

export interface Parts extends Platforms {
  settings: Settings;
  logger: Logger;
  /** The one time line: what decides on time reads it, and the agent's and the scheduler's timers run on it. */
  clock: Clock & Timers;
  registry: DeviceRegistry;
  stats: AgentStats;
  unplugged: UnpluggedLedger;
  /** The device set last reported, kept across restarts (no ghosts). */
  reported: ReportedStore;
  /** The state directory's troubles, said once between its writers. */
  stateDirTrouble: StateDirTrouble;
  /** The device-change lines, a flapping phone's summed up (src/devices/flap-log.ts). */
  flaps: FlapLog;
  reporter: Reporter;
  /** Whom the actions' booking gate asks; none for a command that sends nothing. */
  booking: BookingStatusSource | undefined;
  /** The registered features (src/agent/features.ts): the daemon starts those that follow something of their own and builds their actions, and their series join /metrics. */
  features: Features;
  /** The USB layer's word on the phones, read-only, for recovery (src/devices/usb-evidence.ts). */
  usb: UsbEvidence;
  /** The one look-up from a device to its hub port and charge way (settings hubPorts and charge.ways), read once. */
  mapping: DeviceMapping;
}

export interface BuildOptions {
  nodeId: string;
  /** Where reports go; none for a command that sends nothing (a dry run, list, doctor). */
  cloud?: ReportSink;
  /** Where the booking status of a device is read (the daemon's cloud client). */
  booking?: BookingStatusSource;
  clock?: Clock & Timers;
}

export function buildParts(settings: Settings, env: NodeJS.ProcessEnv, logger: Logger, options: BuildOptions): Parts {
  const clock = options.clock ?? systemClock;
  // Every limited(logger) of the agent counts and wakes its summaries on the agent's time line.
  carryClock(logger, clock);
  const registry = new DeviceRegistry();
  // The state directory's writers say its trouble (full, read-only) once between them.
  const stateDirTrouble = new StateDirTrouble();
  const powerPaths = new PowerPaths(uncutPortsFile(join(stateDirOf(settings, env), 'charge-uncut-ports.json'), logger, stateDirTrouble));
  const stats = new AgentStats();
  // One judge of hot batteries for the host: the feature says the host's line, and a phone's own hot warning after it, unless the host's line names it.
  const heat = hostHeatOf(settings.health);
  const pausedPorts = new PausedPortsFile(join(stateDirOf(settings, env), 'charge-paused-ports.json'), logger, stateDirTrouble);
  // One look-up from a device to its port and charge way, for the actions and the rows alike: a key naming two phones is refused alike and said once.
  const mapping = new DeviceMapping({
    hubPorts: hubPortsOf(settings.hubPorts),
    chargeWays: chargeWaysOf(settings.charge.ways),
    networkDevices: settings.networkDevices,
    logger,
    clock,
  });
  const featureContext = { settings, stateDir: stateDirOf(settings, env), logger, clock, powerPaths, pausedPorts, mapping, heat, platforms: platformNames };
  // One USB layer: the feature reports through it, recovery reads its evidence. It publishes the
  // phones on a port and off adb (OFF_SOURCE), which readiness judges: without the facet here, the
  // layer kept by the wiring published nothing and such a phone lost its not-ready verdict.
  const usb = new UsbLayer({ ...featureContext, offSource: registry.facet(OFF_SOURCE), presence: registry.presence });
  const features = buildFeatures(registry, { ...featureContext, layer: usb }, stats);
  // Each inventory that answered, heard by the features that follow readings (readiness's drift): the platform names none.
  registry.readings.on('answered', (key) => {
    const device = registry.get(key);
    if (device) answeredAll(features, device);
  });
  const platforms = buildPlatforms(settings, env, logger, registry, clock);
  const unplugged = new UnpluggedLedger();
  const reported = new ReportedStore(join(stateDirOf(settings, env), 'reported-devices.json'), logger, stateDirTrouble);
  const flaps = new FlapLog(logger, clock);
  const reporter = new Reporter({
    nodeId: options.nodeId,
    sources: platforms.sources,
    registry,
    features,
    settings,
    machine: new MachineCollector({ version: agentVersion, buildNumber: buildNumber(projectRoot, agentVersion, env) }),
    cloud: options.cloud ?? noCloud,
    unplugged,
    reported,
    stats,
    logger,
    clock,
    // Past it, a source's devices go out with their last inventories (src/report/execute.ts).
    collectTimeoutMs: collectTimeoutMs(settings),
    changes: flaps,
  });
  // Devices an earlier run reported and that are not back by the first report go out as UNPLUGGED,
  // unless the USB layer finds one on a port with adb no longer listing it.
  const earlier = reported.load();
  unplugged.seed(earlier);
  usb.rememberEarlier(earlier);
  return {
    ...platforms,
    settings,
    logger,
    clock,
    registry,
    stats,
    unplugged,
    reported,
    stateDirTrouble,
    flaps,
    reporter,
    booking: options.booking,
    features,
    usb,
    mapping,
  };
}

/**
 * The whole daemon: the parts, the actions, the report loop, the status
 * views and server, and the Agent that wires them. Nothing does I/O yet.
 */
export function buildDaemon(parts: Parts, nodeId: string): Agent {
  const { settings, logger, registry, clock, sources, stats } = parts;
  const loop = new ReportLoop({ settings, nodeId, sources, registry, reporter: parts.reporter, unplugged: parts.unplugged, logger, clock });
  const { actions, runner, hubPorts } = buildActions(parts, () => loop.devicesChanged());
  const views = new StatusViews({
    nodeId,
    settings,
    stats,
    registry,
    sources,
    report: loop,
    hubPorts,
    platformNames: parts.names,
    mapping: { look: parts.mapping, platform: parts.control.platform },
    features: parts.features,
    facts: { pageSize: (key) => platformFacts.pageSize(registry, key) },
    metricSources: [featureMetrics(parts.features)],
    clock,
  });
  // Its state file beside reported-devices.json: the state directory, where doctor looks.
  const status = new StatusServer(settings.statusListen, views, logger, {
    stateFile: join(dirname(parts.reported.file), STATUS_STATE_FILE),
    stateDirTrouble: parts.stateDirTrouble,
    webConfigFile: settings.statusWebConfigFile,
    hosts: settings.statusHosts,
    nodeId,
  });
  return new Agent({
    nodeId,
    settings,
    logger,
    clock,
    registry,
    unplugged: parts.unplugged,
    reported: parts.reported,
    flaps: parts.flaps,
    sources,
    actions,
    runner,
    loop,
    views,
    status,
    features: parts.features,
  });
}

/**
 * How long one source's collect may take in the daemon: a source's own
 * deadlines end it well before (Android's report wait is the probe timeout
 * plus 1 s), so past twice the probe timeout plus 10 s it is stuck.
 */
/** One line when a proxy the host sets is passed by for a plain http cloud on loopback: the route is then not what http_proxy says. */
function sayLoopbackPassesProxy(baseUrl: string, proxies: ProxyPlan, logger: Logger): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return;
  }
  const route = routeFor(proxies, url);
  if (route.kind === 'direct' && route.why === 'loopback-plain-http') {
    logger.info(
      { proxy: route.proxy.label },
      `the cloud ${url.host} is reached direct, not through ${route.proxy.label} (${route.setting}): ${LOOPBACK_DIRECT}`,
    );
  }
}

function collectTimeoutMs(settings: Settings): number {
  return settings.probeTimeoutSeconds * 2000 + 10_000;
}

const noCloud: ReportSink = {
  putDevices: () => Promise.reject(new Error('this command sends nothing')),
};

export function cloudClient(settings: Settings, credentials: Credentials, logger: Logger, retry?: Partial<RetryPolicy>): CloudClient {
  // Proxies and trusted CAs (issue 26): docs/install/proxy.md.
  const network = cloudNetwork(settings);
  sayLoopbackPassesProxy(settings.baseUrl, network.proxies, logger);
  return new CloudClient({
    retry,
    proxies: network.proxies,
    ...(network.trust.secureContext && { secureContext: network.trust.secureContext }),
    baseUrl: settings.baseUrl,
    username: credentials.username,
    apiKey: credentials.apiKey,
    requestTimeoutMs: settings.requestTimeoutSeconds * 1000,
    userAgent: `device-agent/${agentVersion}`,
    logger,
  });
}
