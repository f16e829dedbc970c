// The one factory of the object graph: `run`, `once`, `list` and `doctor` build their parts here, from the settings,
// and nothing does I/O yet.
import { dirname, join } from 'node:path';
import { deviceMappingOf, type DeviceMapping } from '../actions/device-mapping.js';
import { ActionRunner, inStartOrder } from '../actions/runner.js';
import { bookingGateOf } from '../booking/gate.js';
import { CloudClient } from '../cloud/client.js';
import type { BookingStatusSource } from '../cloud/booking-status.js';
import { cloudNetwork } from '../cloud/network.js';
import { LOOPBACK_DIRECT, routeFor, type ProxyPlan } from '../cloud/proxy/route.js';
import type { Credentials } from '../config/credentials.js';
import { hubNamesOf, hubPortsOf } from '../config/hub-ports.js';
import { stateDirOf } from '../config/node-id.js';
import type { Settings } from '../config/schema.js';
import { DeviceRegistry } from '../devices/registry.js';
import { actedAll, answeredAll, featureMetrics } from '../devices/feature.js';
import { hookMetrics } from '../devices/feature-guard.js';
import { FlapLog } from '../devices/flap-log.js';
import type { Feature } from '../features/context.js';
import { Uhubctl } from '../hub/uhubctl.js';
import type { Logger } from '../log/logger.js';
import { carryClock } from '../log/limited.js';
import { buildNumber } from '../machine/build-number.js';
import { MachineCollector } from '../machine/collector.js';
import { ReportedStore } from '../report/reported-store.js';
import { Reporter, type ReportSink } from '../report/reporter.js';
import { UnpluggedLedger } from '../report/unplugged.js';
import { AgentStats } from '../stats/agent-stats.js';
import { StatusServer } from '../status/server.js';
import { STATUS_STATE_FILE } from '../status/endpoint-state.js';
import { StatusViews } from '../status/views.js';
import { systemClock, type Clock, type Timers } from '../util/clock.js';
import { agentVersion, projectRoot } from '../util/package.js';
import { SharedParts } from '../util/shared-parts.js';
import { Agent } from './agent.js';
import { buildFeatures } from './features.js';
import { buildPlatforms, platformFacts, platformNames, readinessReader, wearReader, type Platforms } from './platforms.js';
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
  /** The device-change lines, a flapping phone's summed up (src/devices/flap-log.ts). */
  flaps: FlapLog;
  reporter: Reporter;
  /** Whom the actions' booking gate asks; none for a command that sends nothing. */
  booking: BookingStatusSource | undefined;
  /** The registered features (src/agent/features.ts): the daemon starts those that follow something of their own and runs their actions, and their series join /metrics. */
  features: readonly Feature[];
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
  const stats = new AgentStats();
  const stateDir = stateDirOf(settings, env);
  // One look-up from a device to its port and charge way, for the actions and the rows alike: a key naming two phones is refused alike and said once.
  const mapping = deviceMappingOf(settings, logger);
  const platforms = buildPlatforms(settings, env, logger, registry, clock);
  const reported = new ReportedStore(join(stateDir, 'reported-devices.json'), logger);
  // Devices an earlier run reported and not back by the first report go out UNPLUGGED, unless a feature finds them.
  const earlier = reported.load() ?? [];
  const unplugged = new UnpluggedLedger(registry.timeline);
  unplugged.seed(earlier);
  const features = buildFeatures({
    settings,
    registry,
    stats,
    logger,
    clock,
    stateDir,
    earlier,
    platforms: {
      names: platformNames,
      readiness: readinessReader,
      wear: wearReader,
      facts: platformFacts,
      phones: platforms.control,
    },
    mapping,
    uhubctl: new Uhubctl(settings.recovery.powerCycleCommand),
    shared: new SharedParts(),
  });
  // Each inventory that answered, heard by the features that follow readings (readiness's drift): the platform names none.
  registry.readings.on('answered', (key) => {
    const device = registry.get(key);
    if (device) answeredAll(features, device);
  });
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
  return {
    ...platforms,
    settings,
    logger,
    clock,
    registry,
    stats,
    unplugged,
    reported,
    flaps,
    reporter,
    booking: options.booking,
    features,
    mapping,
  };
}

/** The whole daemon: the parts, the actions, the report loop, the status views and server, and the Agent wiring them. No I/O yet. */
export function buildDaemon(parts: Parts, nodeId: string) {
  const { settings, logger, registry, clock, sources, stats } = parts;
  const loop = new ReportLoop({ settings, nodeId, sources, registry, reporter: parts.reporter, unplugged: parts.unplugged, logger, clock });
  // One runner, and one booking gate, for every action: the host's status requests are bounded together.
  const runner = new ActionRunner({
    clock,
    registry,
    stats,
    logger,
    gate: bookingGateOf(settings, clock),
    ...(parts.booking && { booking: parts.booking }),
    onChange: () => loop.devicesChanged(),
    // What each intent did, heard by the features that follow the actions (the flight recorder).
    onDone: (done) => actedAll(parts.features, done),
  });
  const views = new StatusViews({
    nodeId,
    settings,
    stats,
    registry,
    sources,
    report: loop,
    hubPorts: hubPortsOf(settings.hubPorts),
    hubNames: hubNamesOf(settings.hubNames),
    platformNames: parts.names,
    mapping: { look: parts.mapping, platform: parts.control.platform },
    features: parts.features,
    facts: { pageSize: (key) => platformFacts.pageSize(registry, key) },
    metricSources: [featureMetrics(parts.features, stats), hookMetrics(stats)],
    clock,
  });
  // Its state file beside reported-devices.json: the state directory, where doctor looks.
  const status = new StatusServer(settings.statusListen, views, logger, {
    stateFile: join(dirname(parts.reported.file), STATUS_STATE_FILE),
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
    flaps: parts.flaps,
    sources,
    actions: actionsOf(parts.features).map((action) => ({ name: action.name, start: () => runner.start(action), stop: () => runner.stop(action) })),
    runner,
    loop,
    views,
    status,
    features: parts.features,
  });
}

/** The features' actions, in the order they start. */
function actionsOf(features: readonly Feature[]) {
  return inStartOrder(features.flatMap((f) => (f.action ? [f.action] : [])));
}

/** What the features' actions read once for a command that changes nothing (`list`): no gate is asked, so nothing that needs one is written. */
export async function readOnce(parts: Parts) {
  const { clock, registry, stats, logger } = parts;
  const runner = new ActionRunner({ clock, registry, stats, logger });
  for (const action of actionsOf(parts.features)) if (action.readOnce) await runner.once(action);
}

/** One line when a proxy the host sets is passed by for a plain http cloud on loopback: the route is then not what http_proxy says. */
function sayLoopbackPassesProxy(baseUrl: string, proxies: ProxyPlan, logger: Logger) {
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

/** How long one source's collect may take in the daemon: its own deadlines end it well before, so past this it is stuck. */
function collectTimeoutMs(settings: Settings) {
  return settings.probeTimeoutSeconds * 2000 + 10_000;
}

const noCloud: ReportSink = {
  putDevices: () => Promise.reject(new Error('this command sends nothing')),
};

export function cloudClient(settings: Settings, credentials: Credentials, logger: Logger) {
  // Proxies and trusted CAs (issue 26): docs/install/proxy.md.
  const network = cloudNetwork(settings);
  sayLoopbackPassesProxy(settings.baseUrl, network.proxies, logger);
  return new CloudClient({
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
