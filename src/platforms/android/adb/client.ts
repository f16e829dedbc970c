// Before adbkit: node-forge, which adbkit loads, is loaded on demand (forge-on-demand.ts).
import './forge-on-demand.js';
import adbkit from '@devicefarmer/adbkit';
import type { Client } from '@devicefarmer/adbkit';

type AdbStatic = typeof adbkit.Adb;
// Node's ESM loader hands over module.exports (Adb a property of it); vitest the CommonJS default export, Adb itself.
const Adb = (adbkit as { Adb?: AdbStatic }).Adb ?? (adbkit as unknown as AdbStatic);
import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';

/** adbkit's device tracker: emits changeSet, end and error; end() stops it. */
export interface Tracker extends EventEmitter {
  end(): unknown;
}

// adbkit answers with Bluebird promises whose types are not installed; these are the shapes the agent relies on.
export interface RawDevice {
  id: string;
  type: string;
}
/** adbkit's Connection, as far as the deadline and raw host requests need it. */
interface Connection {
  getSocket(): unknown;
  write(data: Buffer): unknown;
  parser: {
    readAscii(n: number): PromiseLike<string>;
    readValue(): PromiseLike<Buffer>;
    readError(): PromiseLike<never>;
  };
}
import { AdbCommandError, AdbUnreachableError, isProtocolError, isUnreachable, ShellCutError, ShellTimeoutError } from './errors.js';
import { describe, type AdbServerAddress } from './server-address.js';
import { parseDevicesLong } from './devices-long.js';

export interface AdbDevice {
  /** adb's serial: the USB serial, or HOST:PORT for a device reached over TCP. */
  serial: string;
  /** adb's own state string: device, unauthorized, offline, recovery, no permissions (...), ... */
  state: string;
}

export interface ShellOptions {
  /** Deadline of the whole session: connecting, opening the shell and reading to its end. */
  timeoutMs: number;
  /** Output beyond this is cut off, so a runaway command cannot eat the agent's memory. */
  maxBytes?: number;
  /**
   * The line the command prints last: a session is whole only when its output ends with it, else a ShellCutError with
   * what arrived (adb's legacy shell has no exit status: a killed shell ends the stream like a finished command).
   */
  endMarker?: string;
  /** Each chunk of the output as it arrives (within maxBytes), for a caller that can use a part before the end. */
  onData?: (chunk: Buffer) => void;
}

export interface ShellResult {
  output: string;
  bytes: number;
  /** Output beyond maxBytes was cut off (a session without an end marker; one with it is a ShellCutError). */
  truncated: boolean;
}

/**
 * The agent's one door to the adb server: every call is one round trip under a deadline covering connect, request and
 * answer. adbkit's calls have none, and a server or adbd that never answers would hold the caller for good.
 */
export class AdbClient {
  private client: Client | undefined;

  constructor(
    readonly address: AdbServerAddress,
    /** Deadline of a request to the adb server itself (list, version, start of tracking). */
    private readonly requestTimeoutMs = 10_000,
  ) {}

  get label() {
    return describe(this.address);
  }

  private get adb() {
    // adbkit starts `adb start-server` itself when the connection is refused. The agent must not: under systemd the adb
    // unit owns the server (with USB access the agent lacks), so `false` stands in for the adb binary.
    this.client ??= Adb.createClient({ host: this.address.host, port: this.address.port, bin: 'false' });
    return this.client;
  }

  /** The server's own round trip (host:version); `timeoutMs` overrides the request deadline (a quick check of the server). */
  async version(timeoutMs?: number) {
    const version = await this.host((c) => c.version() as PromiseLike<number>, timeoutMs);
    // adbkit reads whatever four bytes come as the version: a web server's answer gives NaN.
    if (!Number.isFinite(version)) throw new AdbUnreachableError(this.label, 'EPROTO', 'its version answer is not a number');
    return version;
  }

  async listDevices() {
    const list = await this.host((c) => c.listDevices() as PromiseLike<RawDevice[]>);
    return list.map((d) => ({ serial: d.id, state: String(d.type) }));
  }

  /** adb's long listing: usb path, product, model, transport id per device. */
  async listDevicesLong() {
    return parseDevicesLong(await this.hostValue('host:devices-l'));
  }

  /** `adb reconnect offline`: the server drops and retries every offline transport. */
  reconnectOffline() {
    return this.hostValue('host:reconnect-offline');
  }

  /** `adb -s SERIAL reconnect`: a USB device comes back by itself; adb 29 forgets a TCP one until it is connected again. */
  async reconnect(serial: string) {
    const answer = await this.hostValue(`host-serial:${serial}:reconnect`);
    if (!answer.startsWith('reconnecting')) throw new AdbCommandError(`-s ${serial} reconnect`, answer);
    return answer;
  }

  /** `adb connect HOST:PORT`; adb's refusal ("failed to connect to ...") is an AdbCommandError. */
  async connect(address: string) {
    const answer = await this.hostValue(`host:connect:${address}`);
    if (!/^(already )?connected to /.test(answer)) throw new AdbCommandError(`connect ${address}`, answer);
    return answer;
  }

  /** `adb disconnect HOST:PORT`: the server drops that network device. */
  disconnect(address: string) {
    return this.hostValue(`host:disconnect:${address}`);
  }

  /** What `adb mdns services` prints after its header (adb 30 on); adb 29 and before refuse it: an AdbCommandError. */
  async mdnsServices() {
    try {
      return await this.hostValue('host:mdns:services');
    } catch (err) {
      if ((err as Error).name === 'FailError') throw new AdbCommandError('mdns services', (err as Error).message.replace(/^Failure: '(.*)'$/s, '$1'));
      throw err;
    }
  }

  /** A host request adbkit has no faithful command for (`host:devices-l`, `host:connect:H:P`), answered with one value. */
  async hostValue(request: string) {
    return this.host(async (c) => {
      const conn = await (c as unknown as { connection(): PromiseLike<Connection> }).connection();
      try {
        const payload = Buffer.from(request, 'utf8');
        conn.write(Buffer.concat([Buffer.from(payload.length.toString(16).padStart(4, '0'), 'ascii'), payload]));
        const reply = await conn.parser.readAscii(4);
        if (reply === 'FAIL') await conn.parser.readError();
        if (reply !== 'OKAY') throw new AdbUnreachableError(this.label, 'EPROTO', `answered ${JSON.stringify(reply)} to ${request}`);
        return (await conn.parser.readValue()).toString('utf8');
      } finally {
        // Destroyed, not ended: a half-closed socket stayed open until adb closed its side.
        destroy(conn);
      }
    });
  }

  /** Starts tracking; the deadline covers the server's acceptance, not the (endless) stream after it. */
  track() {
    return this.host((c) => c.trackDevices() as PromiseLike<Tracker>);
  }

  /** Runs one shell session and returns its output; closes the session at the deadline. */
  async shell(serial: string, command: string, { timeoutMs, maxBytes = 8 * 1024 * 1024, endMarker, onData }: ShellOptions) {
    const scope = this.scope();
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stream: Duplex | undefined;
    const output = () => Buffer.concat(chunks).toString('utf8');
    return new Promise<ShellResult>((resolve, reject) => {
      let settled = false;
      // `cut`: nothing of an abandoned session may linger: its socket is destroyed, not just ended.
      const finish = (fn: () => void, cut = false) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (cut) {
          stream?.destroy();
          scope.close();
        }
        fn();
      };
      // Real time, not the agent's clock: the socket's own I/O runs in real time.
      const timer = setTimeout(() => finish(() => reject(new ShellTimeoutError(serial, timeoutMs, output(), stream ? 'output' : 'open')), true), timeoutMs);
      this.call(() => scope.client.getDevice(serial).shell(command) as PromiseLike<Duplex>).then(
        (opened) => {
          if (settled) return void opened.destroy();
          stream = opened;
          opened.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes <= maxBytes) {
              chunks.push(chunk);
              return void onData?.(chunk);
            }
            // A device that floods is cut off here rather than read to the deadline.
            chunks.push(chunk.subarray(0, chunk.length - (bytes - maxBytes)));
            finish(
              () =>
                endMarker === undefined
                  ? resolve({ output: output(), bytes, truncated: true })
                  : reject(new ShellCutError(serial, output(), maxBytes, 'truncated')),
              true,
            );
          });
          // A socket destroyed under the stream closes without an end: the same case.
          const ended = () =>
            finish(() => {
              const text = output();
              if (endMarker === undefined || text.trimEnd().endsWith(endMarker)) resolve({ output: text, bytes, truncated: false });
              else reject(new ShellCutError(serial, text, bytes, 'ended'));
            });
          opened.once('end', ended);
          opened.once('close', ended);
          // What arrived before the failure is still the device's answer, as far as it went.
          opened.once('error', (err: NodeJS.ErrnoException) =>
            finish(() => reject(bytes > 0 ? new ShellCutError(serial, output(), bytes, 'failed', err.code ?? err.message) : err), true),
          );
        },
        (err: unknown) => finish(() => reject(err)),
      );
    });
  }

  /** A request to the adb server itself, bounded by requestTimeoutMs. */
  private host<T>(fn: (client: Client) => PromiseLike<T>, timeoutMs?: number) {
    const scope = this.scope();
    const ms = timeoutMs ?? this.requestTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      // Real time, as the shell's deadline above: the transport's own.
      const timer = setTimeout(() => {
        scope.close();
        reject(new AdbUnreachableError(this.label, 'ETIMEDOUT', `${ms} ms`));
      }, ms);
      this.call(() => fn(scope.client))
        .finally(() => clearTimeout(timer))
        .then(resolve, (err: unknown) => reject(isProtocolError(err) ? new AdbUnreachableError(this.label, 'EPROTO', err.message.slice(0, 120)) : err));
    });
  }

  // adbkit with its connections in reach, so a deadline can close what a call opened: adbkit opens its connections
  // through client.connection(), and a per-call object whose prototype is the shared client sees every one of them.
  // close() destroys every connection the scope opened, and any it opens from now on.
  private scope() {
    const base = this.adb;
    const opened: Connection[] = [];
    let closed = false;
    const client = Object.create(base) as Client;
    (client as { connection: () => PromiseLike<Connection> }).connection = () =>
      (base.connection() as PromiseLike<Connection>).then((conn) => {
        opened.push(conn);
        if (closed) destroy(conn);
        return conn;
      });
    return {
      client,
      close: () => {
        closed = true;
        for (const conn of opened) destroy(conn);
      },
    };
  }

  private async call<T>(fn: () => PromiseLike<T>) {
    try {
      return await fn();
    } catch (err) {
      if (isUnreachable(err)) throw new AdbUnreachableError(this.label, err.code ?? 'error');
      const cmd = (err as { cmd?: unknown }).cmd;
      if (typeof cmd === 'string' && cmd.includes('start-server')) throw new AdbUnreachableError(this.label, 'ECONNREFUSED');
      throw err;
    }
  }
}

function destroy(conn: Connection) {
  (conn.getSocket() as { destroy?: () => void } | undefined)?.destroy?.();
}
