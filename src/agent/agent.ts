import type { DeviceSource } from '../platforms/source.js';
import type { StatusServer } from '../status/server.js';
import type { StatusViews } from '../status/views.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { changedAll, type DeviceFeature } from '../devices/feature.js';
import type { Logger } from '../log/logger.js';
import type { Settings } from '../config/schema.js';
import type { Clock, Timer, Timers } from '../util/clock.js';
import type { FlapLog } from '../devices/flap-log.js';
import type { ActionRunner } from '../actions/runner.js';
import type { ReportLoop } from './report-loop.js';

/**
 * How long a feature's or an action's start or stop may take before the daemon goes on without waiting for it: past the
 * bounds of their own (charge control's 5 s to switch its ports on), within the 10 s a service manager allows a stop.
 */
export const LIFECYCLE_MS = 7_000;

/** A part of the daemon with a lifecycle: started in order, stopped in reverse. */
interface Service {
  readonly name: string;
  start(): Promise<unknown> | void;
  stop(): Promise<unknown> | void;
}

/** What the Agent wires: built by buildDaemon (build.ts). */
export interface AgentParts {
  nodeId: string;
  settings: Pick<Settings, 'schedule' | 'jitterSeconds' | 'shutdownTimeoutSeconds'>;
  logger: Logger;
  clock: Clock & Timers;
  registry: DeviceRegistry;
  /** Where the sources' changes are logged, a flapping phone's summed up. */
  flaps: Pick<FlapLog, 'changed' | 'stop'>;
  sources: readonly DeviceSource[];
  /** The features' actions, in the order they start (ACTS_ON). */
  actions: readonly Service[];
  /** Where the actions hear that the devices changed (src/actions/runner.ts). */
  runner: Pick<ActionRunner, 'devicesChanged'>;
  loop: ReportLoop;
  views: StatusViews;
  status: StatusServer;
  /** The features; those with a lifecycle start after the status server, before the sources. */
  features: readonly DeviceFeature[];
}

/**
 * The daemon, as wiring only: source events go to the report loop and the actions; start() and stop() run an ordered
 * list of services (status server, sources, actions, report loop), stopping in reverse.
 */
export class Agent {
  private readonly services: Service[];
  private started = false;
  private stopping = false;

  constructor(private readonly parts: AgentParts) {
    const { status, sources, actions, loop } = parts;
    // A feature's own parts: one that throws or hangs is said, and the daemon goes on with the others.
    const bounded = (s: Service): Service => ({ name: s.name, start: () => this.bounded(s, 'start'), stop: () => this.bounded(s, 'stop') });
    this.services = [
      { name: 'status', start: () => status.start(), stop: () => status.stop() },
      ...parts.features.flatMap((f) => (f.start ? [bounded({ name: f.name, start: () => f.start?.(), stop: () => f.stop?.() })] : [])),
      ...sources.map((source) => ({ name: source.platform, start: () => this.startSource(source), stop: () => source.stop() })),
      ...actions.map(bounded),
      { name: 'schedule', start: () => loop.start(), stop: () => loop.stop() },
    ];
  }

  async start() {
    const { settings, logger, registry, runner, loop, views, clock, sources, nodeId } = this.parts;
    views.noteStart(clock.wall());
    // A failed inventory plans a retry: the plan is looked at again, after the report being built.
    const outcomeHeard = () => {
      runner.devicesChanged();
      loop.outcomeNoted();
    };
    registry.readings.on('outcome', () => loop.afterReport(outcomeHeard));
    // A platform's service that stops or starts answering changes what the report says of its phones (report/service-down.ts),
    // and so does a feature's verdict as it changes (a quarantine its failed inventory completes, after the report it woke).
    registry.timeline.on('fact', (fact) => {
      if (fact.kind === 'service') loop.afterReport(() => loop.devicesChanged());
      if (fact.kind === 'verdict') loop.afterReport(() => registry.timeline.unfolded && loop.devicesChanged());
    });
    for (const service of this.services) await service.start();
    this.started = true;
    logger.info(
      // Where each source looks, as doctor sees it: a usbmuxd socket that is not there is said to be absent, not named as used.
      {
        nodeId,
        sources: Object.fromEntries(sources.map((s) => [s.platform, s.whereNow?.() ?? s.label])),
        schedule: settings.schedule,
        jitterSeconds: settings.jitterSeconds,
      },
      'device-agent started',
    );
  }

  /** A service's start or stop, awaited at most LIFECYCLE_MS: a failure or a hang is said, never waited for longer. */
  private async bounded(service: Service, step: 'start' | 'stop') {
    let timer: Timer | undefined;
    const late = new Promise<string>((resolve) => {
      timer = this.parts.clock.setTimer(() => resolve(`did not end within ${LIFECYCLE_MS / 1000} s`), LIFECYCLE_MS, { unref: true });
    });
    const ran = Promise.resolve()
      .then(() => service[step]())
      .then(
        () => undefined,
        (err: unknown) => `failed (${String(err)})`,
      );
    const problem = await Promise.race([ran, late]);
    timer?.cancel();
    if (problem)
      this.parts.logger.error(
        { feature: service.name, step },
        `${service.name}: its ${step} ${problem}; the agent goes on with the others. A bug in the agent: report it`,
      );
  }

  private async startSource(source: DeviceSource) {
    const { loop, runner } = this.parts;
    source.on('connected', (settleMs) => loop.sourceConnected(settleMs));
    source.on('resumed', () => loop.sourceResumed());
    await source.start();
    // Devices found at start go into the first report through the listing: the planner hears only what came after.
    source.on('change', (changes) => {
      this.parts.flaps.changed(changes);
      changedAll(this.parts.features, changes);
      loop.devicesChanged();
      runner.devicesChanged();
    });
    source.on('news', () => loop.devicesChanged());
  }

  /** Stops the services in reverse order, lets an in-flight report finish (bounded), then aborts it. */
  async stop() {
    if (this.stopping) return;
    this.stopping = true;
    const { logger, settings, loop } = this.parts;
    for (const service of [...this.services].reverse()) await service.stop();
    this.parts.flaps.stop();
    await loop.settle(settings.shutdownTimeoutSeconds * 1000);
    logger.info('device-agent stopped');
  }

  /** Asks for a full report now (SIGHUP, tests); resolves with its outcome. */
  report(reason: string) {
    if (this.stopping || !this.started) return Promise.resolve(undefined);
    return this.parts.loop.report(reason);
  }
}
