import adbkit from '@devicefarmer/adbkit';
import type { Client } from '@devicefarmer/adbkit';

type AdbStatic = typeof adbkit.Adb;
// Node's ESM loader hands over module.exports, where Adb is a property;
// vitest hands over the CommonJS default export, which is the Adb class itself.
const Adb: AdbStatic = (adbkit as { Adb?: AdbStatic }).Adb ?? (adbkit as unknown as AdbStatic);
import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';

/** adbkit's device tracker: emits changeSet, end and error; end() stops it. */
export interface Tracker extends EventEmitter {
  end(): unknown;
}

// adbkit answers with Bluebird promises whose types are not installed; these
// are the shapes the agent relies on.
interface RawDevice {
  id: string;
  type: string;
}
import { AdbUnreachableError, isUnreachable, ShellTimeoutError } from './errors.js';
import { describe, type AdbServerAddress } from './server-address.js';

export interface AdbDevice {
  /** adb's serial: the USB serial, or HOST:PORT for a device reached over TCP. */
  serial: string;
  /** adb's own state string: device, unauthorized, offline, recovery, no permissions (...), ... */
  state: string;
}

export interface ShellOptions {
  timeoutMs: number;
  /** Output beyond this is cut off, so a runaway command cannot eat the agent's memory. */
  maxBytes?: number;
}

export interface ShellResult {
  output: string;
  bytes: number;
  truncated: boolean;
}

/** The agent's one door to the adb server; every call is one adb round trip. */
export class AdbClient {
  private client: Client | undefined;

  constructor(readonly address: AdbServerAddress) {}

  get label(): string {
    return describe(this.address);
  }

  private get adb(): Client {
    // adbkit starts `adb start-server` itself when the connection is refused.
    // The agent must not: under systemd the adb unit owns the server (with USB
    // access the agent lacks), so `false` stands in for the adb binary.
    this.client ??= Adb.createClient({ host: this.address.host, port: this.address.port, bin: 'false' });
    return this.client;
  }

  async version(): Promise<number> {
    return this.call(() => this.adb.version() as PromiseLike<number>);
  }

  async listDevices(): Promise<AdbDevice[]> {
    const list = await this.call(() => this.adb.listDevices() as PromiseLike<RawDevice[]>);
    return list.map((d) => ({ serial: d.id, state: String(d.type) }));
  }

  async track(): Promise<Tracker> {
    return this.call(() => this.adb.trackDevices() as PromiseLike<Tracker>);
  }

  /** Runs one shell session and returns its output; closes the session at the timeout. */
  async shell(serial: string, command: string, options: ShellOptions): Promise<ShellResult> {
    const maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
    const stream = await this.call(() => this.adb.getDevice(serial).shell(command) as PromiseLike<Duplex>);
    return new Promise<ShellResult>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      let truncated = false;
      const timer = setTimeout(() => {
        stream.destroy();
        reject(new ShellTimeoutError(serial, options.timeoutMs, Buffer.concat(chunks).toString('utf8')));
      }, options.timeoutMs);
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes <= maxBytes) chunks.push(chunk);
        else truncated = true;
      });
      stream.once('end', () => {
        clearTimeout(timer);
        resolve({ output: Buffer.concat(chunks).toString('utf8'), bytes, truncated });
      });
      stream.once('error', (err: Error) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  private async call<T>(fn: () => PromiseLike<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUnreachable(err)) throw new AdbUnreachableError(this.label, err.code ?? 'error');
      if (String((err as { cmd?: unknown }).cmd ?? '').includes('start-server')) throw new AdbUnreachableError(this.label, 'ECONNREFUSED');
      throw err;
    }
  }
}
