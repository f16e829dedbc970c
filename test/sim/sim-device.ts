// A simulated Android device: speaks the device side of the ADB transport
// protocol over TCP so the real adb server can `adb connect` to it, and runs
// `shell:` commands against a recorded profile.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  A_AUTH,
  A_CLSE,
  A_CNXN,
  A_OKAY,
  A_OPEN,
  A_VERSION_SKIP_CHECKSUM,
  A_WRTE,
  AUTH_SIGNATURE,
  AUTH_TOKEN,
  PacketDecoder,
  encodePacket,
  formatBanner,
  type Packet,
} from './packet.js';
import { freePort } from './adb-server.js';
import { withBatteryLevel, withExternalPower, type Profile } from './profile.js';
import { killTree, spawnShell } from './shell.js';
import { recordedUptimeSeconds, writeStubs, type StubSet } from './stubs.js';

/**
 * ready: answers CNXN; unauthorized: answers with AUTH tokens forever (the
 * user never taps "Allow"); offline: never answers CNXN.
 */
export type SimMode = 'ready' | 'unauthorized' | 'offline';

/** Where a shell output stops short: see SimDeviceOptions.cut. */
export interface CutSpec {
  /** Sessions whose command matches; every session when absent. */
  on?: RegExp;
  /** The output stops after this many bytes, or right after the first occurrence of this text. */
  after: number | string;
  /**
   * What the transport does then: it stays up when absent (the phone stays
   * connected; its shell died and adbd closed the stream), or it drops this
   * many ms after the cut (a cable pulled a moment later).
   */
  dropAfterMs?: number;
  /** Sessions to cut, then the device answers in full again; every matching one when absent. */
  times?: number;
}

/** Commands that answer late: see SimDeviceOptions.slowCommands. */
export interface SlowCommands {
  /** Command names (FRAMEWORK_COMMANDS, or any others). */
  names: readonly string[];
  /** How late each of them answers, ms. */
  ms: number;
}

/** The commands that go through Android's framework (binder services): a loaded phone answers them late. */
export const FRAMEWORK_COMMANDS: readonly string[] = ['dumpsys', 'settings', 'pm', 'wm', 'cmd'];

export interface RebootOptions {
  /** Uptime when the device answers again (default 0). */
  uptimeSeconds?: number;
  /** How long the port refuses connections, ms (default 0: adb reconnects about 250 ms later). */
  downMs?: number;
  /** The profile it answers from after the reboot (an OTA, a wiped device). */
  profile?: Profile;
}

export interface SimDeviceOptions {
  profile: Profile;
  mode?: SimMode;
  /** Every shell answer starts this late (a slow device). */
  delayMs?: number;
  /** Matching shell commands get OKAY and then nothing: no output, no CLSE. */
  hangOn?: RegExp;
  /** A matching shell command makes the device drop its TCP connection at once. */
  vanishOn?: RegExp;
  /**
   * A wedged adbd: the transport stays up (adb lists the device as `device`)
   * but no new shell is ever answered, neither OKAY nor CLSE. The real adb
   * server then holds `adb shell` forever. Also set at run time with wedge().
   */
  wedged?: boolean;
  /**
   * Recorded command lines inside a script ("dumpsys battery") that hang
   * while the rest of the script runs: for probes guarded by `timeout`.
   */
  commandHangOn?: RegExp;
  /** Advertised in the banner. shell_v2 must not be: its framing is not implemented. */
  features?: string[];
  /** Largest payload this device accepts and sends (adbd: 1 MiB). */
  maxData?: number;
  /**
   * Shell outputs that stop short: the device sends part of the output, then
   * closes the stream as if it had ended (adb's legacy shell carries no exit
   * status, so the host cannot tell). Also set at run time with setCut().
   */
  cut?: CutSpec;
  /** Commands (by name) that answer this late inside any session. Also setSlowCommands(). */
  slowCommands?: SlowCommands;
  /**
   * Uptime at construction, seconds; by default the profile's
   * `cat /proc/uptime` recording. /proc/uptime advances with time from there.
   */
  uptimeSeconds?: number;
  /**
   * Settings this device keeps as state rather than as recordings, by key
   * (global) or `system/KEY`: `settings get global KEY` prints the value
   * (`null` for an unset key, as Android does), `settings put global KEY V`
   * changes it, and `settings list global` answers its recording with the
   * kept values in place, for this device only. Also setSetting() and setting().
   */
  settings?: Record<string, string>;
  /** `settings put` of those keys is dropped without a word (a One UI that ignores it). Also ignoreSettingWrites(). */
  ignoresSettingWrites?: boolean;
  /** Kept keys (as in `settings`) whose `settings put` does not stick: the phone takes the write and keeps the old value. */
  settingsThatDoNotStick?: readonly string[];
}

/** The file of a kept setting in the settings folder (stubs.ts): `KEY` is global, `system/KEY` a system one. */
function settingFile(key: string): string {
  const [namespace, name] = key.startsWith('system/') ? ['system', key.slice('system/'.length)] : ['global', key];
  return `${namespace}.${name}`;
}

/** Microseconds since the epoch, the clock bash's EPOCHREALTIME reads in the stubs. */
function nowUs(): number {
  return Date.now() * 1000;
}

const DEVICE_MAX_DATA = 1024 * 1024;
const DEFAULT_FEATURES = ['cmd'];

interface Stream {
  localId: number;
  remoteId: number;
  child: ChildProcessWithoutNullStreams | undefined;
  pending: Buffer[];
  pendingBytes: number;
  awaitingAck: boolean;
  exited: boolean;
  /** Index of its command in SimDevice.commands / sessionBytes. */
  session: number;
  /** Where this session's output stops short, if it does. */
  cut: CutSpec | undefined;
  /** Output bytes taken so far (toward the cut). */
  taken: number;
  /** The output so far as latin1 text, for a cut after a text. */
  seen: string;
  /** The cut happened: later output is dropped. */
  cutDone: boolean;
}

class Connection {
  online = false;
  awaitingAuth = false;
  maxData = DEVICE_MAX_DATA;
  readonly streams = new Map<number, Stream>();
  readonly decoder = new PacketDecoder({ maxData: DEVICE_MAX_DATA });
  readonly timers = new Set<NodeJS.Timeout>();
  closed = false;
  /** This connection's transport is wedged (wedgeTransport); a new connection is not. */
  wedged = false;

  constructor(readonly socket: net.Socket) {}
}

export class SimDevice {
  /** Shell streams opened since start (or the last resetCounts). */
  shellSessions = 0;
  /** The commands of those sessions, in order. */
  commands: string[] = [];
  /** Shell output payload bytes sent in WRTE packets. */
  bytesWritten = 0;
  /** Output bytes sent per session, aligned with `commands`. */
  sessionBytes: number[] = [];
  /** TCP connections accepted (adb reconnects show up here). */
  connectionsAccepted = 0;
  /** Shell OPENs left unanswered while wedged. */
  opensIgnored = 0;
  /** Sessions whose output was cut short (options.cut). */
  cutSessions = 0;

  private mode: SimMode;
  private server: net.Server | undefined;
  private listenPort = 0;
  private workDir: string | undefined;
  private stubs: StubSet | undefined;
  private readonly connections = new Set<Connection>();
  private nextLocalId = 1;
  /** The simulated boot instant, epoch microseconds: /proc/uptime answers the time since. */
  private bootAtUs: number;
  /** Sessions assigned to the current cut (CutSpec.times). */
  private cutsAssigned = 0;

  constructor(readonly options: SimDeviceOptions) {
    this.mode = options.mode ?? 'ready';
    this.bootAtUs = nowUs() - (options.uptimeSeconds ?? recordedUptimeSeconds(options.profile) ?? 0) * 1e6;
  }

  /** Seconds since the simulated boot: what /proc/uptime answers now (with a recording of it). */
  get uptimeSeconds(): number {
    return (nowUs() - this.bootAtUs) / 1e6;
  }

  /**
   * /proc/uptime answers this from now on, and advances from there: a reboot
   * nobody saw, or virtual time a test lets pass for the device too.
   */
  setUptime(seconds: number): void {
    this.bootAtUs = nowUs() - seconds * 1e6;
  }

  /**
   * Reboots: the transport drops at once, the port refuses connections for
   * downMs, then the device listens again with the given uptime (and profile).
   */
  async reboot(options: RebootOptions = {}): Promise<void> {
    this.dropConnections();
    if ((options.downMs ?? 0) > 0) {
      await this.closeServer();
      await new Promise((resolve) => setTimeout(resolve, options.downMs));
    }
    if (options.profile) await this.setProfile(options.profile);
    this.setUptime(options.uptimeSeconds ?? 0);
    if (this.workDir) await this.listen(this.listenPort);
  }

  /** Cuts the next matching shell outputs (see SimDeviceOptions.cut); undefined stops cutting. */
  setCut(cut: CutSpec | undefined): void {
    this.options.cut = cut;
    this.cutsAssigned = 0;
  }

  /** Makes commands answer late from the next session on (see SimDeviceOptions.slowCommands). */
  setSlowCommands(slow: SlowCommands | undefined): void {
    this.options.slowCommands = slow;
  }

  get port(): number {
    return this.listenPort;
  }

  /** The serial adb gives this device once connected. */
  get serial(): string {
    return `127.0.0.1:${this.listenPort}`;
  }

  get currentMode(): SimMode {
    return this.mode;
  }

  /** Listen on 127.0.0.1 (port from the OS unless given); returns the port. */
  async start(port = 0): Promise<number> {
    if (!this.workDir) {
      this.workDir = await mkdtemp(join(tmpdir(), 'adb-sim-'));
      this.stubs = await writeStubs(this.options.profile, this.workDir, this.stubOptions());
      if (this.options.settings) {
        await mkdir(this.settingsDir()!);
        for (const [key, value] of Object.entries(this.options.settings)) await this.setSetting(key, value);
        await this.ignoreSettingWrites(this.options.ignoresSettingWrites ?? false);
        for (const key of this.options.settingsThatDoNotStick ?? []) await writeFile(join(this.settingsDir()!, `ignore.${settingFile(key)}`), '');
      }
    }
    // Below the ephemeral range (freePort), unless a port is given: an
    // unplugged or rebooted device listens on its port again, and one the
    // kernel handed out may by then be an outgoing connection's source port
    // (charge-control's replug failed so in CI once: listen EADDRINUSE on 39291).
    for (let attempt = 0; ; attempt++) {
      try {
        await this.listen(port || (await freePort()));
        return this.listenPort;
      } catch (err) {
        if (port !== 0 || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw err;
      }
    }
  }

  /**
   * Answers the next shell sessions from another profile (the battery
   * drained, an app was installed, the device rebooted); sessions running
   * keep the old one.
   */
  async setProfile(profile: Profile): Promise<void> {
    // A new uptime recording stands for a reboot the test did not announce.
    const uptime = recordedUptimeSeconds(profile);
    const rebooted = uptime !== undefined && uptime !== recordedUptimeSeconds(this.options.profile);
    this.options.profile = profile;
    if (this.workDir) {
      const dir = await mkdtemp(join(this.workDir, 'profile-'));
      this.stubs = await writeStubs(profile, dir, this.stubOptions());
    }
    // The reboot's uptime together with the new stubs, in one step: set before them (while they were written, a
    // second under CI's load), a shell in between read the reboot's uptime beside the old recordings, the agent took
    // that for the reboot's full read (the old Android version), and the next reads were no reboot any more.
    if (rebooted) this.setUptime(uptime);
  }

  private stubOptions() {
    return { hangOn: this.options.commandHangOn, settings: this.options.settings !== undefined };
  }

  /** Where the settings state lives (one file per key), when the device keeps any. */
  private settingsDir(): string | undefined {
    return this.workDir && this.options.settings ? join(this.workDir, 'settings') : undefined;
  }

  /** What `settings get global KEY` (or, for `system/KEY`, `settings get system KEY`) answers now; undefined for a key the device keeps no state of. */
  async setting(key: string): Promise<string | undefined> {
    const dir = this.settingsDir();
    if (!dir) return undefined;
    return readFile(join(dir, settingFile(key)), 'utf8').then(
      (text) => text.trimEnd(),
      () => undefined,
    );
  }

  /** Sets a global setting as a person on the phone would (the key then answers from state). */
  async setSetting(key: string, value: string): Promise<void> {
    const dir = this.settingsDir();
    if (!dir) throw new Error('this simulated device keeps no settings state (SimDeviceOptions.settings)');
    await writeFile(join(dir, settingFile(key)), `${value}\n`);
  }

  /** From now on `settings put` of the kept keys is dropped (true) or taken (false). */
  async ignoreSettingWrites(on: boolean): Promise<void> {
    const dir = this.settingsDir();
    if (!dir) throw new Error('this simulated device keeps no settings state (SimDeviceOptions.settings)');
    if (on) await writeFile(join(dir, 'ignore-writes'), '');
    else await rm(join(dir, 'ignore-writes'), { force: true });
  }

  /** Answers the next `dumpsys battery` with the battery at this level (withBatteryLevel): charged or drained by the test. */
  setBatteryLevel(percent: number): Promise<void> {
    return this.setProfile(withBatteryLevel(this.options.profile, percent));
  }

  /** Its battery on USB power or on none, from the next shell on (a hub port whose power is cut). */
  setExternalPower(on: boolean): Promise<void> {
    return this.setProfile(withExternalPower(this.options.profile, on));
  }

  async stop(): Promise<void> {
    this.dropConnections();
    await this.closeServer();
    if (this.workDir) await rm(this.workDir, { recursive: true, force: true });
    this.workDir = undefined;
    this.stubs = undefined;
  }

  /**
   * Takes effect at the next handshake, except that an unauthorized
   * connection waiting for the user is accepted at once when set to ready.
   */
  setMode(mode: SimMode): void {
    this.mode = mode;
    if (mode !== 'ready') return;
    for (const conn of this.connections) {
      if (conn.awaitingAuth) this.acceptConnection(conn);
    }
  }

  resetCounts(): void {
    this.cutSessions = 0;
    this.shellSessions = 0;
    this.commands = [];
    this.bytesWritten = 0;
    this.sessionBytes = [];
    this.connectionsAccepted = 0;
  }

  /** Pull the cable for a moment: drop the TCP connection, keep listening. */
  disconnect(): void {
    this.dropConnections();
  }

  /** Pull the cable for good: drop the connection and refuse new ones. */
  async unplug(): Promise<void> {
    this.dropConnections();
    await this.closeServer();
  }

  /** Plug back in on the same port after unplug(). */
  async replug(): Promise<void> {
    await this.listen(this.listenPort);
  }

  private async listen(port: number): Promise<void> {
    if (this.server) return;
    const server = net.createServer((socket) => this.onConnection(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.listenPort = (server.address() as net.AddressInfo).port;
  }

  private async closeServer(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private dropConnections(): void {
    for (const conn of [...this.connections]) this.closeConnection(conn, true);
  }

  private onConnection(socket: net.Socket): void {
    this.connectionsAccepted++;
    socket.setNoDelay(true);
    const conn = new Connection(socket);
    this.connections.add(conn);
    socket.on('data', (chunk: Buffer) => {
      for (const packet of conn.decoder.push(chunk)) this.onPacket(conn, packet);
      // A desynchronised stream cannot be recovered: adbd drops it too.
      if (conn.decoder.error !== undefined) this.closeConnection(conn, true);
    });
    socket.on('error', () => this.closeConnection(conn, false));
    socket.on('close', () => this.closeConnection(conn, false));
  }

  private closeConnection(conn: Connection, abrupt: boolean): void {
    if (conn.closed) return;
    conn.closed = true;
    this.connections.delete(conn);
    for (const timer of conn.timers) clearTimeout(timer);
    for (const stream of conn.streams.values()) killTree(stream.child);
    conn.streams.clear();
    if (abrupt) conn.socket.resetAndDestroy();
    else conn.socket.destroy();
  }

  private send(conn: Connection, command: number, arg0: number, arg1: number, data: Buffer = Buffer.alloc(0)): void {
    if (conn.closed) return;
    conn.socket.write(encodePacket({ command, arg0, arg1, data }));
  }

  private onPacket(conn: Connection, packet: Packet): void {
    switch (packet.command) {
      case A_CNXN:
        return this.onConnect(conn, packet);
      case A_AUTH:
        return this.onAuth(conn, packet);
      case A_OPEN:
        return this.onOpen(conn, packet);
      case A_OKAY:
        return this.onOkay(conn, packet);
      case A_WRTE:
        return this.onWrite(conn, packet);
      case A_CLSE:
        return this.onClose(conn, packet);
      default:
        // SYNC, STLS and unknown commands: a device without them ignores them.
        return;
    }
  }

  private onConnect(conn: Connection, packet: Packet): void {
    conn.maxData = Math.min(packet.arg1 || DEVICE_MAX_DATA, this.options.maxData ?? DEVICE_MAX_DATA);
    // The host's CNXN also resets any session on this transport.
    for (const stream of conn.streams.values()) killTree(stream.child);
    conn.streams.clear();
    conn.online = false;
    if (this.mode === 'offline') return;
    if (this.mode === 'unauthorized') {
      conn.awaitingAuth = true;
      this.send(conn, A_AUTH, AUTH_TOKEN, 0, randomBytes(20));
      return;
    }
    this.acceptConnection(conn);
  }

  private acceptConnection(conn: Connection): void {
    conn.awaitingAuth = false;
    conn.online = true;
    const banner = formatBanner({
      systemType: 'device',
      serial: '',
      props: this.options.profile.banner,
      features: this.options.features ?? DEFAULT_FEATURES,
    });
    this.send(conn, A_CNXN, A_VERSION_SKIP_CHECKSUM, conn.maxData, Buffer.from(banner));
  }

  private onAuth(conn: Connection, packet: Packet): void {
    if (!conn.awaitingAuth) return;
    if (this.mode === 'ready') return this.acceptConnection(conn);
    // A rejected signature earns a new token; a public key is left waiting
    // for the user, as adbd does while its dialog is up.
    if (packet.arg0 === AUTH_SIGNATURE) this.send(conn, A_AUTH, AUTH_TOKEN, 0, randomBytes(20));
  }

  /** Wedges adbd (see SimDeviceOptions.wedged), or frees it. */
  wedge(on = true): void {
    this.options.wedged = on;
  }

  /**
   * Wedges the current connections only, as a stuck transport: shells go
   * unanswered on them, while a new connection (after adb kicks the
   * transport and connects again) answers.
   */
  wedgeTransport(): void {
    for (const conn of this.connections) conn.wedged = true;
  }

  private onOpen(conn: Connection, packet: Packet): void {
    const remoteId = packet.arg0;
    if (!conn.online) return;
    if (this.options.wedged || conn.wedged) {
      this.opensIgnored++;
      return;
    }
    const service = packet.data.toString('utf8').replace(/\0+$/, '');
    const match = /^(?:shell|exec):(.*)$/s.exec(service);
    const command = match?.[1];
    // Interactive shells (no command) need a pty; refuse them like any other
    // unsupported service (sync:, reboot:, ...): CLSE with local-id 0.
    if (command === undefined || command.trim() === '') {
      this.send(conn, A_CLSE, 0, remoteId);
      return;
    }
    this.shellSessions++;
    this.commands.push(command);
    this.sessionBytes.push(0);
    if (this.options.vanishOn?.test(command)) {
      this.closeConnection(conn, true);
      return;
    }
    const stream: Stream = {
      localId: this.nextLocalId++,
      remoteId,
      child: undefined,
      pending: [],
      pendingBytes: 0,
      awaitingAck: false,
      exited: false,
      session: this.commands.length - 1,
      cut: this.cutFor(command),
      taken: 0,
      seen: '',
      cutDone: false,
    };
    conn.streams.set(stream.localId, stream);
    this.send(conn, A_OKAY, stream.localId, remoteId);
    if (this.options.hangOn?.test(command)) return;
    const delay = this.options.delayMs ?? 0;
    if (delay <= 0) return this.runCommand(conn, stream, command);
    const timer = setTimeout(() => {
      conn.timers.delete(timer);
      if (conn.streams.get(stream.localId) === stream) this.runCommand(conn, stream, command);
    }, delay);
    conn.timers.add(timer);
  }

  private cutFor(command: string): CutSpec | undefined {
    const cut = this.options.cut;
    if (!cut || (cut.on && !cut.on.test(command))) return undefined;
    if (cut.times !== undefined && this.cutsAssigned >= cut.times) return undefined;
    this.cutsAssigned++;
    return cut;
  }

  /** Variables the stubs read (stubs.ts): the boot instant, the commands that lag, the settings state. */
  private shellEnv(): Record<string, string> {
    const env: Record<string, string> = { SIM_BOOT_US: String(Math.round(this.bootAtUs)) };
    const settings = this.settingsDir();
    if (settings) env.SIM_SETTINGS = settings;
    const slow = this.options.slowCommands;
    if (slow && slow.names.length > 0 && slow.ms > 0) {
      env.SIM_LAG_NAMES = slow.names.join(' ');
      env.SIM_LAG_S = (slow.ms / 1000).toFixed(3);
      env.SIM_LAG_MS = String(Math.round(slow.ms));
    }
    return env;
  }

  /**
   * What of a chunk goes out before the stream's cut; at the cut the command
   * is killed and the stream closes once the kept output is sent.
   */
  private applyCut(conn: Connection, stream: Stream, chunk: Buffer): Buffer {
    const cut = stream.cut!;
    let limit: number | undefined;
    if (typeof cut.after === 'number') {
      limit = cut.after;
    } else {
      const needle = Buffer.from(cut.after, 'utf8').toString('latin1');
      const from = Math.max(0, stream.seen.length - needle.length);
      stream.seen += chunk.toString('latin1');
      const at = stream.seen.indexOf(needle, from);
      if (at >= 0) limit = at + needle.length;
    }
    if (limit === undefined || stream.taken + chunk.length < limit) {
      stream.taken += chunk.length;
      return chunk;
    }
    const kept = chunk.subarray(0, Math.max(0, limit - stream.taken));
    stream.taken += kept.length;
    stream.cutDone = true;
    this.cutSessions++;
    killTree(stream.child);
    stream.exited = true;
    if (cut.dropAfterMs !== undefined) {
      const timer = setTimeout(() => {
        conn.timers.delete(timer);
        this.closeConnection(conn, true);
      }, cut.dropAfterMs);
      conn.timers.add(timer);
    }
    return kept;
  }

  private runCommand(conn: Connection, stream: Stream, command: string): void {
    if (!this.stubs || !this.workDir) return;
    const child = spawnShell(command, this.stubs, this.workDir, this.shellEnv());
    stream.child = child;
    const highWater = conn.maxData * 4;
    const pty = this.options.profile.pty;
    const onData = (raw: Buffer): void => {
      if (stream.cutDone) return;
      let chunk = pty ? Buffer.from(raw.toString('latin1').replace(/\n/g, '\r\n'), 'latin1') : raw;
      if (stream.cut) chunk = this.applyCut(conn, stream, chunk);
      if (chunk.length === 0) return this.pump(conn, stream);
      stream.pending.push(chunk);
      stream.pendingBytes += chunk.length;
      if (stream.pendingBytes > highWater) child.stdout.pause();
      this.pump(conn, stream);
    };
    child.stdout.on('data', onData);
    // stderr is merged by the script itself; drain it anyway so a stray write never blocks.
    child.stderr.on('data', onData);
    child.stdin.on('error', () => undefined);
    child.on('error', () => {
      stream.exited = true;
      this.pump(conn, stream);
    });
    child.on('close', () => {
      stream.exited = true;
      this.pump(conn, stream);
    });
  }

  /** One WRTE at a time: the next goes out after the host's OKAY. */
  private pump(conn: Connection, stream: Stream): void {
    if (conn.closed || stream.awaitingAck || conn.streams.get(stream.localId) !== stream) return;
    if (stream.pendingBytes > 0) {
      const all = stream.pending.length === 1 ? stream.pending[0]! : Buffer.concat(stream.pending);
      const chunk = all.subarray(0, conn.maxData);
      const rest = all.subarray(chunk.length);
      stream.pending = rest.length > 0 ? [rest] : [];
      stream.pendingBytes = rest.length;
      stream.awaitingAck = true;
      this.bytesWritten += chunk.length;
      if (this.sessionBytes.length > stream.session) this.sessionBytes[stream.session]! += chunk.length;
      this.send(conn, A_WRTE, stream.localId, stream.remoteId, Buffer.from(chunk));
      if (stream.pendingBytes <= conn.maxData) stream.child?.stdout.resume();
      return;
    }
    if (stream.exited) {
      conn.streams.delete(stream.localId);
      this.send(conn, A_CLSE, stream.localId, stream.remoteId);
    }
  }

  private onOkay(conn: Connection, packet: Packet): void {
    const stream = conn.streams.get(packet.arg1);
    if (!stream) return;
    stream.awaitingAck = false;
    this.pump(conn, stream);
  }

  private onWrite(conn: Connection, packet: Packet): void {
    const stream = conn.streams.get(packet.arg1);
    if (!stream) return;
    // Host data is the command's stdin.
    stream.child?.stdin.write(packet.data);
    this.send(conn, A_OKAY, stream.localId, stream.remoteId);
  }

  private onClose(conn: Connection, packet: Packet): void {
    const stream = conn.streams.get(packet.arg1);
    if (!stream) return;
    conn.streams.delete(stream.localId);
    killTree(stream.child);
  }
}
