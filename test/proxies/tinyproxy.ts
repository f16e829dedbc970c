// tinyproxy (Debian's `tinyproxy` package, 1.11 on bookworm): a small proxy
// without authentication or with Basic credentials, or one chained to an upstream proxy that is down,
// which it answers with 502 Bad Gateway, as a corporate proxy whose parent
// fails does.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../sim/adb-server.js';
import { ProxyDaemon } from './daemon.js';

export interface TinyproxyOptions {
  /** host:port of an upstream proxy every request goes through. */
  upstream?: string;
  /**
   * Basic credentials it asks for (`BasicAuth`). tinyproxy 1.11 answers wrong
   * ones with 401 and WWW-Authenticate, not 407, and closes the connection
   * at once: a request with a body still being sent gets a reset instead.
   */
  auth?: { user: string; password: string };
}

export class Tinyproxy {
  port = 0;
  private dir = '';
  private daemon: ProxyDaemon | undefined;

  constructor(private readonly options: TinyproxyOptions = {}) {}

  async start(): Promise<string> {
    this.dir = mkdtempSync(join(tmpdir(), 'da-tinyproxy-'));
    this.port = await freePort();
    const lines = [`Port ${this.port}`, 'Listen 127.0.0.1', 'Timeout 30', 'MaxClients 20', 'LogLevel Info'];
    if (this.options.upstream) lines.push(`Upstream http ${this.options.upstream}`);
    if (this.options.auth) lines.push(`BasicAuth ${this.options.auth.user} ${this.options.auth.password}`);
    const config = join(this.dir, 'tinyproxy.conf');
    writeFileSync(config, lines.join('\n') + '\n');
    this.daemon = new ProxyDaemon('tinyproxy', 'tinyproxy', ['-d', '-c', config]);
    await this.daemon.start(this.port);
    return `http://127.0.0.1:${this.port}`;
  }

  get output(): string {
    return this.daemon?.output ?? '';
  }

  async stop(): Promise<void> {
    await this.daemon?.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
