// Squid (Debian's `squid` package, 5.7 on bookworm) as the corporate proxy of
// the tests: Basic authentication through squid's own basic_ncsa_auth helper
// and an htpasswd file, the stock rule that refuses CONNECT to ports other
// than 443 when asked for, and a hosts file of its own, so that a name only
// the proxy resolves makes a host whose only way out is the proxy.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../sim/adb-server.js';
import { ProxyDaemon } from './daemon.js';
import { systemTool } from '../support/system-tool.js';

export interface SquidOptions {
  /** Basic credentials squid requires (any password characters). */
  auth?: { user: string; password: string };
  /** Names squid resolves, to addresses (its hosts_file). */
  hosts?: Record<string, string>;
  /** squid's stock `http_access deny CONNECT !SSL_ports`: CONNECT to 443 only. */
  connectOnly443?: boolean;
}

export class Squid {
  port = 0;
  private dir = '';
  private daemon: ProxyDaemon | undefined;

  constructor(private readonly options: SquidOptions = {}) {}

  /** Resolves with the proxy URL, credentials included when auth is set. */
  async start(): Promise<string> {
    this.dir = mkdtempSync(join(tmpdir(), 'da-squid-'));
    // Started as root, squid works as the `proxy` user: it must write its logs here.
    chmodSync(this.dir, 0o777);
    this.port = await freePort();
    const { auth, hosts, connectOnly443 } = this.options;
    const lines = [
      `http_port 127.0.0.1:${this.port}`,
      `pid_filename ${join(this.dir, 'squid.pid')}`,
      `cache_log ${join(this.dir, 'cache.log')}`,
      `access_log stdio:${join(this.dir, 'access.log')}`,
      `coredump_dir ${this.dir}`,
      'cache deny all',
      'cache_mem 0 MB',
      'pinger_enable off',
      'shutdown_lifetime 0 seconds',
      'visible_hostname device-agent-test-proxy',
    ];
    const hostsFile = join(this.dir, 'hosts');
    writeFileSync(hostsFile, ['127.0.0.1 localhost', ...Object.entries(hosts ?? {}).map(([name, ip]) => `${ip} ${name}`)].join('\n') + '\n');
    lines.push(`hosts_file ${hostsFile}`);
    if (connectOnly443) lines.push('acl SSL_ports port 443', 'http_access deny CONNECT !SSL_ports');
    if (auth) {
      const hash = execFileSync(systemTool('openssl'), ['passwd', '-apr1', auth.password], { encoding: 'utf8' }).trim();
      const htpasswd = join(this.dir, 'htpasswd');
      writeFileSync(htpasswd, `${auth.user}:${hash}\n`, { mode: 0o644 });
      lines.push(
        `auth_param basic program /usr/lib/squid/basic_ncsa_auth ${htpasswd}`,
        'auth_param basic children 1 startup=1 idle=1',
        'auth_param basic realm device-agent-test',
        'acl authenticated proxy_auth REQUIRED',
        'http_access allow authenticated',
      );
    } else {
      lines.push('http_access allow all');
    }
    lines.push('http_access deny all');
    const config = join(this.dir, 'squid.conf');
    writeFileSync(config, lines.join('\n') + '\n', { mode: 0o644 });
    this.daemon = new ProxyDaemon('squid', 'squid', ['-N', '-f', config]);
    await this.daemon.start(this.port);
    return this.url(auth);
  }

  url(credentials?: { user: string; password: string }): string {
    const userinfo = credentials ? `${encodeURIComponent(credentials.user)}:${encodeURIComponent(credentials.password)}@` : '';
    return `http://${userinfo}127.0.0.1:${this.port}`;
  }

  /** squid's access log: one line per request, CONNECT and user included. */
  accessLog(): string {
    try {
      return readFileSync(join(this.dir, 'access.log'), 'utf8');
    } catch {
      return '';
    }
  }

  async stop(): Promise<void> {
    await this.daemon?.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }
}
