// The real adb server (/usr/bin/adb) on a private port with a private HOME,
// so tests never touch the user's server on 5037 nor its keys.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AdbHostError, hostRequest, parseDevices, type DeviceEntry } from './host-client.js';
import { systemTool } from '../support/system-tool.js';

export interface AdbServerOptions {
  adbPath?: string;
  /** Fixed port; by default one the OS hands out. */
  port?: number;
  /** How long start() waits for the server to answer. */
  startTimeoutMs?: number;
}

export interface AdbRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** 'absent': not listed by `adb devices` at all. */
export type DeviceState = 'device' | 'offline' | 'unauthorized' | 'absent' | (string & {});

const running = new Set<ChildProcess>();
// A crashed test must not leave adb servers behind.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

import { freePort } from './free-port.js';

export { freePort };

/**
 * Each death by a signal of this process's servers since the test began, kept though a bed
 * starts its server again between tests: a test that failed after one is
 * retried (test/support/adb-revive.ts). CI at 019478b7: the agent met a
 * refused port for 30 s after a test's restart of its adb server, and the
 * bed's reset() started the server again without a word.
 */
export const crashes: string[] = [];

/** Servers started and not stopped, so a test's set-up can start again one that died on its own (reviveCrashed). */
const live = new Set<AdbServer>();

/**
 * Starts again each server of this process that died on its own (`crash`)
 * and that no test stopped, on its port and HOME, with its phones connected
 * again; says so on stderr. A file-scoped server (started in beforeAll) that
 * died in one test stays dead for the next, and for that test's retry
 * (HARNESS_ADB_DIED in vitest.config.ts): CI39's retry of `completeness.e2e`
 * ran into ECONNREFUSED. Run before each e2e and soak test (test/support/adb-revive.ts).
 */
export async function reviveCrashed(): Promise<void> {
  for (const server of live) {
    const crash = server.crash;
    if (crash === undefined || server.running) continue;
    process.stderr.write(`AdbServer: ${crash}; starting it again on port ${server.port}\n`);
    await server.revive();
  }
}

export class AdbServer {
  private child: ChildProcess | undefined;
  private serverPort = 0;
  private home: string | undefined;
  private log = '';
  /** The adb command, found at the first start. */
  private adbTool: string | undefined;
  /** Ports `connect`ed, so restart() can connect them again. */
  readonly connected = new Set<number>();

  constructor(readonly options: AdbServerOptions = {}) {}

  get port(): number {
    return this.serverPort;
  }

  /** For the agent's environment (adbkit reads neither; pass `port` to it). */
  get env(): Record<string, string> {
    return {
      ADB_SERVER_SOCKET: `tcp:127.0.0.1:${this.serverPort}`,
      ANDROID_ADB_SERVER_PORT: String(this.serverPort),
    };
  }

  /** The server's own output (nodaemon logs to stderr), for failure messages. */
  get output(): string {
    return this.log;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** The server process's id (to stop and continue it: SIGSTOP, SIGCONT); undefined when it is not running. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<number> {
    if (this.child) return this.serverPort;
    this.adbTool ??= systemTool(this.options.adbPath ?? 'adb');
    this.home ??= await mkdtemp(join(tmpdir(), 'adb-home-'));
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = this.serverPort || this.options.port || (await freePort());
      try {
        await this.launch(port);
        live.add(this);
        return port;
      } catch (error) {
        lastError = error as Error;
        await this.kill();
        // Someone took the port between freePort() and adb's bind.
        if (!this.options.port && !this.serverPort) continue;
        break;
      }
    }
    throw new AdbHostError(`adb server did not start: ${lastError?.message}\n${this.log.slice(-2000)}`);
  }

  private async launch(port: number): Promise<void> {
    // adb would fail to bind, but a foreign server would answer our polls.
    const foreign = await hostRequest(port, 'host:version', { timeoutMs: 1000 }).then(
      () => true,
      () => false,
    );
    if (foreign) throw new AdbHostError(`port ${port} already serves another adb server`);
    this.log = '';
    const child = spawn(this.adbTool!, ['-P', String(port), 'server', 'nodaemon'], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: this.home!,
        TMPDIR: this.home!,
        // No USB: only the simulated TCP devices should ever appear.
        ADB_LIBUSB: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (chunk: Buffer): void => {
      this.log = (this.log + chunk.toString()).slice(-20000);
    };
    child.stdout?.on('data', append);
    child.stderr?.on('data', append);
    running.add(child);
    this.child = child;
    child.once('exit', (code, signal) => {
      running.delete(child);
      if (this.child === child) this.child = undefined;
      if (this.killing.has(child)) return;
      this.crash = `adb server (pid ${child.pid}) died: ${signal ?? `exit ${code}`}`;
      // Said as it happens: a test that fails later may not name it. An exit of its own is a test's `adb kill-server`.
      process.stderr.write(`AdbServer: ${this.crash}\n`);
      if (signal) crashes.push(this.crash);
    });
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 10_000);
    for (;;) {
      if (this.child !== child) throw new AdbHostError(`adb exited at start (code ${child.exitCode})`);
      try {
        await hostRequest(port, 'host:version', { timeoutMs: 1000 });
        this.serverPort = port;
        // `crash` tells how this server died, not an earlier one on the port.
        this.crash = undefined;
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await sleep(20);
      }
    }
  }

  /**
   * How the server died when nobody stopped it (a test's kill or stop aside):
   * Debian's adb server (1:34) now and then dies of SIGSEGV while many
   * `adb connect`s are under way at once (seen in SimFarm.start with 60
   * phones, 2 starts in about 30), which the farm's set-up recovers from.
   */
  crash: string | undefined;
  private readonly killing = new WeakSet<ChildProcess>();

  /** `crash`, once the server's exit is seen within `ms` (a reset connection can come before it); undefined while it runs. */
  async crashWithin(ms: number): Promise<string | undefined> {
    const deadline = Date.now() + ms;
    while (this.crash === undefined && this.child && Date.now() < deadline) await sleep(20);
    return this.crash;
  }

  /** A server crash: SIGKILL, no goodbye to the devices. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.killing.add(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  /**
   * Start again on the same port and HOME. adb 29 forgets `adb connect`ed
   * devices when it dies, so by default they are connected again. `evict`
   * first sends host:kill to whatever adb server answers on the port (see
   * evictStranger); only for tests that know a stranger may sit there.
   */
  async restart(options: { reconnect?: boolean; evict?: boolean } = {}): Promise<void> {
    await this.kill();
    if (options.evict) await this.evictStranger();
    await this.start();
    if (options.reconnect ?? true) {
      await Promise.all([...this.connected].map((port) => this.connect(port)));
    }
  }

  /**
   * adbkit answers ECONNREFUSED by running `adb -P PORT start-server` (unless
   * its `bin` option points elsewhere), so a client of a killed server may
   * have put a daemon of its own on our port.
   */
  private async evictStranger(): Promise<void> {
    if (!this.serverPort) return;
    try {
      await hostRequest(this.serverPort, 'host:kill', { timeoutMs: 1000, bare: true });
    } catch {
      return;
    }
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline) {
      try {
        await hostRequest(this.serverPort, 'host:version', { timeoutMs: 500 });
      } catch {
        return;
      }
      await sleep(20);
    }
  }

  /**
   * Start again after a crash: on the same port and HOME, the crash
   * forgotten, the phones connected again; one since unplugged (its port
   * refusing) is dropped rather than failing the others.
   */
  async revive(): Promise<void> {
    await this.start();
    const ports = [...this.connected];
    const answers = await Promise.allSettled(ports.map((port) => this.connect(port)));
    answers.forEach((answer, i) => {
      if (answer.status === 'rejected' || /failed to connect/.test(answer.value)) this.connected.delete(ports[i]!);
    });
  }

  async stop(): Promise<void> {
    live.delete(this);
    await this.kill();
    this.connected.clear();
    if (this.home) await rm(this.home, { recursive: true, force: true });
    this.home = undefined;
  }

  /**
   * `adb connect 127.0.0.1:PORT`; returns adb's message. adb 29 answers once
   * the handshake ends: "connected to ..." for a ready device, "failed to
   * authenticate to ..." for an unauthorized one (it stays listed), and after
   * 10 s "failed to connect to ..." for one that never answers CNXN (it stays
   * listed as offline). With `wait: false` the answer is not awaited.
   */
  async connect(devicePort: number, options: { wait?: boolean } = {}): Promise<string> {
    this.connected.add(devicePort);
    const request = hostRequest(this.serverPort, `host:connect:127.0.0.1:${devicePort}`, { timeoutMs: 20_000 });
    if (options.wait === false) {
      request.catch(() => undefined);
      return '';
    }
    const message = await request;
    if (/cannot connect|unable to connect/i.test(message)) {
      this.connected.delete(devicePort);
      throw new AdbHostError(`connect 127.0.0.1:${devicePort}: ${message}`);
    }
    return message;
  }

  async disconnect(devicePort: number): Promise<string> {
    this.connected.delete(devicePort);
    return hostRequest(this.serverPort, `host:disconnect:127.0.0.1:${devicePort}`);
  }

  /** adb's list; a server that died on its own is named in the error (CI26's chaos soak failed on a bare ECONNREFUSED here). */
  async devices(): Promise<DeviceEntry[]> {
    let answer: string;
    try {
      answer = await hostRequest(this.serverPort, 'host:devices');
    } catch (error) {
      const crash = await this.crashWithin(500);
      if (crash === undefined) throw error;
      throw new AdbHostError(`${crash}; host:devices on port ${this.serverPort} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    return parseDevices(answer);
  }

  async state(serial: string): Promise<DeviceState> {
    return (await this.devices()).find((entry) => entry.serial === serial)?.state ?? 'absent';
  }

  /** Poll `adb devices` until `serial` is in `state`; returns the time it took. */
  async waitForState(serial: string, state: DeviceState, timeoutMs = 10_000): Promise<number> {
    return this.waitForStates(new Map([[serial, state]]), timeoutMs);
  }

  /**
   * Poll `adb devices` until every serial is in its state. A server that
   * died on its own meanwhile is started again with its phones (revive),
   * once or twice: a test's set-up waits here after connecting its phones,
   * when Debian's adb dies most (CI at f5a17de9: SIGSEGV in wear.e2e's
   * beforeAll), and a hook is not retried as a test is (HARNESS_ADB_DIED).
   */
  async waitForStates(expected: Map<string, DeviceState>, timeoutMs = 10_000): Promise<number> {
    const started = Date.now();
    let last: DeviceEntry[];
    for (let revived = 0; ;) {
      try {
        last = await this.devices();
      } catch (error) {
        if (this.crash === undefined || this.running || !live.has(this) || revived++ >= 2) throw error;
        process.stderr.write(`AdbServer: ${this.crash} while waiting for its phones; starting it again on port ${this.port}\n`);
        await this.revive();
        continue;
      }
      const states = new Map(last.map((entry) => [entry.serial, entry.state]));
      let done = true;
      for (const [serial, state] of expected) {
        if ((states.get(serial) ?? 'absent') !== state) done = false;
      }
      if (done) return Date.now() - started;
      if (Date.now() - started > timeoutMs) {
        const wanted = [...expected]
          .map(([s, st]) => `${s}=${st}`)
          .slice(0, 10)
          .join(', ');
        const seen =
          last
            .map((e) => `${e.serial}=${e.state}`)
            .slice(0, 10)
            .join(', ') || 'none';
        throw new AdbHostError(`timed out after ${timeoutMs} ms waiting for ${wanted}; adb lists ${seen}`);
      }
      await sleep(25);
    }
  }

  /** Run the adb command-line client against this server. */
  adb(args: string[], timeoutMs = 20_000): Promise<AdbRun> {
    return new Promise((resolve) => {
      execFile(
        this.adbTool ?? systemTool(this.options.adbPath ?? 'adb'),
        ['-P', String(this.serverPort), ...args],
        { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.home ?? tmpdir() }, timeout: timeoutMs, encoding: 'utf8' },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  }
}
