// An in-process bed of the report path on virtual time: an in-memory source
// (src/platforms/source.ts) whose listing and inventories the test gives, an
// in-memory cloud (ReportSink), and the real registry, reporter, report loop
// and status views between them, as buildDaemon wires them.
import { EventEmitter } from 'node:events';
import { buildFeatures } from '../../src/agent/features.js';
import { ReportLoop } from '../../src/agent/report-loop.js';
import { CloudUnavailableError } from '../../src/cloud/errors.js';
import type { DeviceInfo, FailedDevice, ReportAnswer, ReportBody } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { READINESS_FACTS } from '../../src/devices/readiness-facts.js';
import { FlapLog } from '../../src/devices/flap-log.js';
import type { Platform } from '../../src/devices/record.js';
import { silentLogger, type Logger } from '../../src/log/logger.js';
import type { CollectRequest, DeviceSource, SourceDevice, SourceEvents } from '../../src/platforms/source.js';
import { Reporter, type ReportSink } from '../../src/report/reporter.js';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { StatusViews } from '../../src/status/views.js';
import type { Clock } from '../../src/util/clock.js';
import { VirtualTime } from '../support/virtual-time.js';
import { NOTHING_DISABLED } from '../platforms/android/inventory/support.js';
import { loadSettings } from '../../src/config/load.js';
import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';
import { ActionRunner, inStartOrder } from '../../src/actions/runner.js';
import { bookingGateOf } from '../../src/booking/gate.js';
import type { BookingStatusSource } from '../../src/cloud/booking-status.js';
import { actedAll, answeredAll, changedAll, featureMetrics } from '../../src/devices/feature.js';
import type { Feature } from '../../src/features/context.js';
import { guarded, hookMetrics } from '../../src/devices/feature-guard.js';
import type { SharedParts } from '../../src/util/shared-parts.js';

export function phone(udid: string, platform: Platform = 'android'): DeviceInfo {
  const android = platform === 'android';
  return {
    udid,
    serialNumber: udid,
    state: android ? 'device' : 'paired',
    status: 'AVAILABLE',
    platformName: android ? 'ANDROID' : 'IOS',
    isAndroid: android,
    isIos: !android,
  };
}

/** A platform in memory: list() is its service's listing, failing() makes its collect throw. */
export class MemSource extends EventEmitter<SourceEvents> implements DeviceSource {
  readonly label: string;
  listed = false;
  lastError = undefined;
  private up = true;
  /** Record keys each collect inventoried. */
  readonly asked: string[][] = [];
  fail: Error | undefined;
  /** Set: an inventory of a device fails (its udid), saying failureText. */
  readonly silent = new Set<string>();
  failureText = 'did not answer';
  /** Set: an inventory of a device never answers (its udid), and so the collect that asked it. */
  readonly hung = new Set<string>();

  constructor(
    private readonly registry: DeviceRegistry,
    readonly platform: Platform = 'android',
    readonly readyState = 'device',
  ) {
    super();
    this.label = `mem:${platform}`;
  }

  /** Whether its service answers: its word goes into the timeline, as a platform's source says it. */
  get alive(): boolean {
    return this.up;
  }

  set alive(up: boolean) {
    this.up = up;
    this.registry.timeline.service(this.platform, up, this.clock.monotonic());
  }

  problems(): string[] {
    return this.alive ? [] : [`${this.label} is down`];
  }

  async start(): Promise<void> {}
  stop(): void {}
  async listOnce(): Promise<void> {}
  invalidateSlow(): void {}

  /** The time the inventories are noted on (the bed's): when each answered or failed. */
  clock: Pick<Clock, 'monotonic' | 'wall'> = { monotonic: () => 0, wall: () => 0 };

  /** Fields an inventory of a device answers over the plain phone's (by udid): a battery. */
  readonly answers = new Map<string, Partial<DeviceInfo>>();
  /** The readiness facts an inventory of a device reads (by udid), published as a platform's source publishes them (src/devices/readiness-facts.ts). */
  readonly facts = new Map<string, Record<string, string>>();

  /** The service's listing arrived (serial = udid): into the registry, a change event after the first. */
  list(serials: string[], state = this.readyState, emit = this.listed): void {
    this.registry.sync(this.platform, new Map(serials.map((s) => [s, state])));
    this.listed = true;
    if (emit)
      this.emit(
        'change',
        serials.map((s) => ({ key: `${this.platform}/${s}`, serial: s, to: state })),
      );
  }

  /** The listing with a state per device (serial = udid): into the registry; the changes as the tracker says them. */
  listStates(states: ReadonlyMap<string, string>, emit = this.listed): void {
    const before = new Map(this.registry.list(this.platform).map((r) => [r.serial, r.state]));
    const { changed, gone } = this.registry.sync(this.platform, states);
    this.listed = true;
    if (!emit || (changed.length === 0 && gone.length === 0)) return;
    this.emit('change', [
      ...changed.map((key) => {
        const serial = key.slice(key.indexOf('/') + 1);
        return { key, serial, ...(before.has(serial) && { from: before.get(serial)! }), to: states.get(serial)! };
      }),
      ...gone.map((g) => ({ key: g.key, serial: g.serial, from: g.state })),
    ]);
  }

  async collect(request: CollectRequest): Promise<SourceDevice[]> {
    if (this.fail) throw this.fail;
    const asked: string[] = [];
    for (const r of this.registry.list(this.platform)) {
      if (r.state !== this.readyState || request.hold?.has(r.key)) continue;
      if (request.refresh !== 'all' && !request.refresh.has(r.key) && r.last !== undefined) continue;
      asked.push(r.key);
      if (this.hung.has(r.serial)) {
        this.registry.readings.asked(r.key, 0);
        this.asked.push(asked);
        return new Promise<never>(() => undefined);
      }
      const [wall, mono] = [this.clock.wall(), this.clock.monotonic()];
      if (this.silent.has(r.serial)) this.registry.readings.failed(r.key, this.failureText, wall, mono);
      else {
        const facts = this.facts.get(r.serial);
        if (facts) this.registry.facet(READINESS_FACTS).set(r.key, facts);
        this.registry.readings.answered(r.key, { ...phone(r.serial, this.platform), ...this.answers.get(r.serial) }, wall, mono);
      }
    }
    this.asked.push(asked);
    // As a platform's source says a phone that stopped answering: its last inventory, UNAVAILABLE while it fails.
    return this.registry
      .list(this.platform)
      .flatMap((r) => (r.last ? [{ key: r.key, info: r.failures > 0 ? { ...r.last, status: 'UNAVAILABLE' } : r.last }] : []));
  }
}

/** The cloud in memory: keeps every body, answers at once; while `failing`, with a failure that may pass (a 503). */
export class MemCloud implements ReportSink {
  readonly bodies: Array<{ at: number; body: ReportBody; delivered: boolean }> = [];
  /** Set: every PUT fails with it (a cloud answering with a login page), and is not kept. */
  failWith: Error | undefined;
  failing = false;
  /** Set while `failing`: the failure is a 429 asking for that much quiet (Retry-After). */
  retryAfterMs: number | undefined;
  /** Devices the cloud does not store (udid -> its message), in failedDevices of every answer that carries them. */
  readonly refuse = new Map<string, string>();
  /** Entries added to the failedDevices of every answer, carried or not (a cloud naming another host's devices). */
  alsoNamed: FailedDevice[] = [];
  /** Times of every PUT, kept or not. */
  readonly attempts: number[] = [];
  /** How long the cloud takes to answer (virtual ms). */
  delayMs = 0;
  /** The most PUTs that were ever unanswered at once. */
  maxInFlight = 0;
  private inFlight = 0;
  /** Set: every PUT is kept and never answered (a cloud that accepts and hangs). */
  hanging = false;
  readonly host = 'cloud.mem.test';
  constructor(private readonly time: VirtualTime) {}
  async putDevices(body: ReportBody): Promise<ReportAnswer> {
    this.attempts.push(this.time.now);
    if (this.delayMs > 0) {
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
      await new Promise((r) => this.time.schedule(() => r(undefined), this.delayMs));
      this.inFlight--;
    }
    return this.answer(body);
  }
  private answer(body: ReportBody): Promise<ReportAnswer> {
    if (this.failWith) return Promise.reject(this.failWith);
    if (this.hanging) {
      this.bodies.push({ at: this.time.now, body: structuredClone(body), delivered: false });
      return new Promise<never>(() => undefined);
    }
    this.bodies.push({ at: this.time.now, body: structuredClone(body), delivered: !this.failing });
    if (this.failing && this.retryAfterMs !== undefined)
      return Promise.reject(new CloudUnavailableError('PUT /devices', 'HTTP 429', { status: 429, retryAfterMs: this.retryAfterMs }));
    if (this.failing) return Promise.reject(new Error('the cloud answered 503'));
    const failedDevices = body.devices.flatMap((d) => (this.refuse.has(d.udid) ? [{ udid: d.udid, message: this.refuse.get(d.udid)! }] : []));
    return Promise.resolve({ failedDevices: [...failedDevices, ...this.alsoNamed] });
  }
}

export interface BedOptions {
  platforms?: Array<[Platform, string]>;
  firstListingWaitMs?: number;
  /** udids an earlier run reported. */
  reportedBefore?: string[];
  logger?: Logger;
  /** The schedule (default every 5 min). */
  schedule?: string;
  /** Log the sources' changes as the daemon does, a flapping phone's summed up (src/devices/flap-log.ts). */
  flapLog?: boolean;
  /** The hiddenDevices setting (default none). */
  hiddenDevices?: string[];
  /** Settings over the bed's (by key: 'quarantine.failures'). */
  set?: Record<string, unknown>;
  /** The state directory (default none: nothing kept). */
  stateDir?: string;
  /** Parts the features share, given before they are built (a USB layer's word the test decides). */
  shared?: SharedParts;
  /**
   * Run the features' actions on one runner as the daemon does, its booking
   * questions to this cloud, and start the features that follow something of
   * their own (`start()`); the sources' changes, the inventories' answers and
   * the intents' outcomes heard by the features as buildParts and the Agent wire them.
   */
  daemon?: { booking: BookingStatusSource };
  /** The door to the phones the actions use (default: one that reaches none). */
  phones?: AndroidControl;
  /** jitterSeconds (default 0). */
  jitterSeconds?: number;
  /** This host's node id (default n1): it fixes where in each period its scheduled reports go. */
  nodeId?: string;
  /** The time line, shared by a fleet of beds (default a new one), and this bed's seed of its random source. */
  time?: VirtualTime;
  seed?: number;
  /** Features registered after the daemon's, guarded as buildFeatures guards them (a feature whose hooks throw). */
  more?: Feature[];
}

export function reportBed(options: BedOptions = {}) {
  const time = options.time ?? new VirtualTime();
  const clock = time.clock({ seed: options.seed });
  const nodeId = options.nodeId ?? 'n1';
  const registry = new DeviceRegistry();
  const sources = (options.platforms ?? [['android', 'device']]).map(([p, ready]) => new MemSource(registry, p, ready));
  for (const s of sources) s.clock = clock;
  const cloud = new MemCloud(time);
  const stats = new AgentStats();
  const unplugged = new UnpluggedLedger(registry.timeline);
  unplugged.seed((options.reportedBefore ?? []).map((u) => phone(u)));
  const logger = options.logger ?? silentLogger();
  const settings = {
    schedule: options.schedule ?? '*/5 * * * *',
    jitterSeconds: options.jitterSeconds ?? 0,
    changeDebounceMs: 500,
    shutdownTimeoutSeconds: 5,
    requestTimeoutSeconds: 30,
  };
  const flaps = options.flapLog ? new FlapLog(logger, clock) : undefined;
  // As the daemon builds them, with its health settings: health judges each reading; no kernel log or sysfs to follow,
  // and no iOS tunnel daemon (its phones are Android's): the iOS tools are not spawned.
  const features: Feature[] = buildFeatures(
    featureContext<AndroidControl>({
      settings: loadSettings({
        env: {},
        overrides: new Map<string, unknown>([
          ['usb.kernelLog', ''],
          ['usb.sysfsRoot', '/nonexistent'],
          ['readiness.checks', []],
          ['iosDeveloper.tunnelDaemons', []],
          ...Object.entries(options.set ?? {}),
        ]),
      }),
      ...(options.stateDir !== undefined && { stateDir: options.stateDir }),
      registry,
      stats,
      logger,
      clock,
      ...(options.shared && { shared: options.shared }),
      ...(options.phones && { phones: options.phones }),
    }),
  );
  features.push(...(options.more ?? []).map((f) => guarded(f, { logger, clock, stats })));
  const reporter = new Reporter({
    nodeId,
    sources,
    registry,
    features,
    settings: { hiddenDevices: options.hiddenDevices ?? [], addedToCloud: true, support: NOTHING_DISABLED },
    machine: { collect: async () => ({ hostname: 'h' }) as never },
    cloud,
    unplugged,
    stats,
    logger,
    clock,
    collectTimeoutMs: 20_000,
    changes: flaps,
  });
  const loop = new ReportLoop({
    settings,
    nodeId,
    sources,
    registry,
    reporter,
    unplugged,
    logger,
    clock,
    firstListingWaitMs: options.firstListingWaitMs,
  });
  // As the Agent wires it: an outcome noted mid-report is heard once, after it.
  const outcomeHeard = (): void => loop.outcomeNoted();
  registry.readings.on('outcome', () => loop.afterReport(outcomeHeard));
  registry.timeline.on('fact', (fact) => {
    if (fact.kind === 'service') loop.afterReport(() => loop.devicesChanged());
    if (fact.kind === 'verdict') loop.afterReport(() => registry.timeline.unfolded && loop.devicesChanged());
  });
  for (const s of sources) {
    s.on('connected', (settleMs) => loop.sourceConnected(settleMs));
    s.on('change', (changes) => {
      flaps?.changed(changes);
      loop.devicesChanged();
    });
  }
  const views = new StatusViews({
    nodeId,
    settings,
    stats,
    registry,
    sources,
    report: loop,
    hubPorts: new Map(),
    features,
    metricSources: [featureMetrics(features, stats), hookMetrics(stats)],
    clock,
  });
  views.noteStart(clock.wall());
  const daemon = options.daemon;
  const runner = daemon
    ? new ActionRunner({
        clock,
        registry,
        stats,
        logger,
        gate: bookingGateOf(loadSettings({ env: {} }), clock),
        booking: daemon.booking,
        onChange: () => loop.devicesChanged(),
        onDone: (done) => actedAll(features, done),
      })
    : undefined;
  if (daemon) {
    registry.readings.on('answered', (key) => {
      const device = registry.get(key);
      if (device) answeredAll(features, device);
    });
    registry.readings.on('outcome', () => loop.afterReport(() => runner!.devicesChanged()));
    for (const s of sources) s.on('change', (changes) => (changedAll(features, changes), runner!.devicesChanged()));
  }
  const actions = inStartOrder(features.flatMap((f) => (f.action ? [f.action] : [])));
  /** The daemon's start, for a bed with `daemon`: the features that follow something of their own, then the actions. */
  const startDaemon = async (): Promise<void> => {
    for (const f of features) await f.start?.();
    for (const a of actions) runner?.start(a);
  };
  /** Its stop, in reverse: the actions, then the features (they keep their files). */
  const stopDaemon = async (): Promise<void> => {
    for (const a of [...actions].reverse()) await runner?.stop(a);
    for (const f of [...features].reverse()) await f.stop?.();
  };
  /** Runs virtual time on by ms, letting the promises of each step settle. */
  const advance = async (ms: number, stepMs = 50): Promise<void> => {
    const end = time.now + ms;
    while (time.now < end) {
      time.advance(Math.min(stepMs, end - time.now));
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    }
  };
  /** The present (not UNPLUGGED) udids of each body. */
  const sent = () => cloud.bodies.map((b) => b.body.devices.filter((d) => d.status !== 'UNPLUGGED').map((d) => d.udid));
  return {
    time,
    clock,
    registry,
    sources,
    source: sources[0]!,
    cloud,
    stats,
    loop,
    views,
    advance,
    sent,
    unplugged,
    flaps,
    features,
    runner,
    startDaemon,
    stopDaemon,
  };
}
