// iPhones' developer services on this host, as one part with a lifecycle:
// the tunnel daemons watched (watch.ts), the host's tools read (tools.ts),
// and each iPhone from iOS 17 judged (judge.ts) when the report asks, once
// started (the daemon; a one-shot command reads neither, and says nothing
// of them rather than guess): a note
// in its message and Appium off while it is not ready or not supported
// here, a TUNNEL cell in `list`, counts on /metrics. A phone that reconnects
// (a reboot, a replug) has its daemons read again at once, so that the next
// report names a tunnel that outlived it.
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { TUNNEL } from '../../devices/verdicts.js';
import type { Metric } from '../../util/metric.js';
import type { FeatureContext } from '../context.js';
import type { DaemonKind } from './daemons.js';
import { judgePhone, needsTunnel } from './judge.js';
import { iosVersionOf, supportOf, type ToolName } from './support.js';
import { hostTools, type Run } from './tools.js';
import type { DaemonRef } from './tunnel-state.js';
import { DaemonWatch, type Fetch } from './watch.js';

/** The platform of the phones this part judges: tunnels are an iPhone's. */
const PLATFORM = 'ios';
/** lockdown answered a session: the phones whose developer services are judged (one not paired is readiness's). */
const PAIRED = 'paired';

/** A `kind=value` setting's two halves. */
const halves = (entry: string): [string, string] => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)];

const STATES = ['live', 'stale', 'none', 'unknown', 'no-daemon', 'not-supported'] as const;

export class IosDeveloper {
  readonly watch: DaemonWatch;
  readonly tools: ReturnType<typeof hostTools>;
  private readonly daemons: DaemonRef[];
  /** Each phone's connection when its daemons were last read for it: a new one asks them at once. */
  private readonly epochs = new Map<string, number>();

  /** `fetch` and `run`: how a daemon is asked and a tool run, the real ones unless a test gives its own. */
  constructor(
    private readonly ctx: Pick<FeatureContext, 'settings' | 'registry' | 'logger' | 'clock'>,
    io: { fetch?: Fetch; run?: Run } = {},
  ) {
    const { logger, clock, settings } = ctx;
    const s = settings.iosDeveloper;
    // iOS off altogether (`ios: false`): nothing to judge.
    this.daemons = (settings.ios === false ? [] : s.tunnelDaemons).map((id) => {
      const [kind, url] = halves(id);
      return { id, kind: kind as DaemonKind, url };
    });
    this.watch = new DaemonWatch({
      daemons: this.daemons,
      pollMs: s.pollSeconds * 1000,
      clock,
      logger,
      phones: () => this.phones(),
      polled: () => this.judgeAll(),
      fetch: io.fetch,
    });
    const commands = s.tools.map((entry) => {
      const [tool, command] = halves(entry);
      return { tool: tool as ToolName, command };
    });
    this.tools = hostTools({ commands, clock, logger, run: io.run });
  }

  /** Started: the tools and the daemons read once. Before (a one-shot command, which starts no feature), nothing is judged: unknown. */
  private started = false;

  get off() {
    return this.daemons.length === 0;
  }

  async start() {
    if (this.off) return;
    await this.tools.start();
    this.watch.start();
    // The first report reads the daemons' first answer.
    await this.watch.poll();
    this.started = true;
  }

  stop() {
    this.watch.stop();
    this.tools.stop();
  }

  /** The phones usbmuxd lists, each with its connection (its record's changedSeq: tunnel-state.ts). */
  private phones() {
    return this.ctx.registry.list(PLATFORM).map((r) => ({ udid: r.udid ?? r.serial, epoch: r.changedSeq }));
  }

  /** A phone's inventory answered: one on a new connection has its daemons read at once. */
  answered(device: DeviceSnapshot) {
    if (this.off || device.platform !== PLATFORM || !needsTunnel(device.last?.platformVersion)) return;
    const udid = device.udid ?? device.serial;
    // Said at once from what is known, and again once its daemons are read.
    this.judge(device);
    if (this.epochs.get(udid) === device.changedSeq) return;
    this.epochs.set(udid, device.changedSeq);
    if (this.epochs.size > 10_000) this.epochs.clear();
    void this.watch.poll();
  }

  /** What is said of a listed iPhone; undefined when nothing (before iOS 17, not paired, the part off). */
  judgementOf(device: DeviceSnapshot) {
    if (!this.started || device.platform !== PLATFORM || device.last?.state !== PAIRED) return undefined;
    const version = device.last.platformVersion;
    const ios = iosVersionOf(version);
    if (!ios) return undefined;
    const udid = device.udid ?? device.serial;
    const daemons = this.watch.daemons();
    const tunnel = this.watch.ledger.verdict({ udid, epoch: device.changedSeq }, daemons);
    const userspace = tunnel.state === 'live' || tunnel.state === 'stale' ? tunnel.tunnel.userspace : undefined;
    const up = daemons.filter((d) => d.state === 'up').map((d) => d.kind);
    return judgePhone(udid, version, supportOf(ios, this.tools.tools(), up, userspace), tunnel);
  }

  /**
   * What is said of each listed iPhone, as its verdict in the timeline (src/devices/verdicts.ts): its note, Appium off
   * while it is not ready here; standing until the next poll or answer says otherwise.
   */
  judgeAll() {
    for (const device of this.ctx.registry.list(PLATFORM)) this.judge(device);
  }

  private judge(device: DeviceSnapshot) {
    const j = this.judgementOf(device);
    this.ctx.registry.timeline.verdict(
      device.udid ?? device.serial,
      TUNNEL,
      j && {
        ...(j.notReady && { appiumOff: true, out: { state: 'needs_person', layer: 'readiness' } }),
        words: j.note,
        detail: { cell: j.cell, state: j.state },
      },
    );
  }

  /** The iPhones the views show by their tunnel's state (a bounded label set). */
  tallies(udids: readonly string[]): Metric[] {
    if (this.off) return [];
    const judged = udids.flatMap((u) => this.ctx.registry.timeline.verdictBy(u, TUNNEL)?.detail ?? []);
    return [
      {
        name: 'device_agent_ios_tunnel_devices',
        help: "iPhones from iOS 17 by their developer services on this host: live (a tunnel made in their current connection), stale (the daemon's tunnel predates their reconnect), none, unknown (the daemon that kept them does not answer), no-daemon (none ever answered), not-supported (the host's tools do not support their iOS)",
        type: 'gauge',
        samples: STATES.map((state) => ({ labels: { state }, value: judged.filter((j) => j.state === state).length })),
      },
    ];
  }

  metrics(): Metric[] {
    if (this.off) return [];
    return [
      {
        name: 'device_agent_ios_tunnel_daemon_up',
        help: 'whether each configured iOS 17 tunnel daemon (iosDeveloper.tunnelDaemons) answered its last listing: 1 up, 0 down, refusing or garbage',
        type: 'gauge',
        samples: this.watch.daemons().map((d) => ({ labels: { daemon: d.kind, url: d.url }, value: d.state === 'up' ? 1 : 0 })),
      },
    ];
  }
}
