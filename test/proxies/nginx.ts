// nginx (Debian's `nginx` package, 1.22 on bookworm) as the gateway a lab puts
// in front of a cloud: a reverse proxy on loopback to an upstream port, with
// timeouts of a second, so that an upstream that is down makes it answer its
// own HTML 502 Bad Gateway and one that is slow its 504 Gateway Time-out. One
// process (master_process off) as the user running the test, its files in a
// temp dir.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../sim/adb-server.js';
import { ProxyDaemon } from './daemon.js';

export class NginxGateway {
  port = 0;
  private dir = '';
  private daemon: ProxyDaemon | undefined;

  /** `upstream`: the port behind it, on 127.0.0.1 (nothing need listen there yet). */
  constructor(private readonly upstream: number) {}

  /** Resolves with the gateway's http://127.0.0.1:port. */
  async start(): Promise<string> {
    this.dir = mkdtempSync(join(tmpdir(), 'da-nginx-'));
    this.port = await freePort();
    const d = this.dir;
    const config = [
      'daemon off;',
      'master_process off;',
      `pid ${d}/nginx.pid;`,
      'error_log stderr warn;',
      'events { worker_connections 64; }',
      'http {',
      '  access_log off;',
      `  client_body_temp_path ${d}/body; proxy_temp_path ${d}/proxy; fastcgi_temp_path ${d}/fastcgi;`,
      `  uwsgi_temp_path ${d}/uwsgi; scgi_temp_path ${d}/scgi;`,
      '  server {',
      `    listen 127.0.0.1:${this.port};`,
      '    location / {',
      `      proxy_pass http://127.0.0.1:${this.upstream};`,
      '      proxy_connect_timeout 1s; proxy_send_timeout 1s; proxy_read_timeout 1s;',
      '    }',
      '  }',
      '}',
    ].join('\n');
    writeFileSync(join(d, 'nginx.conf'), config + '\n');
    this.daemon = new ProxyDaemon('nginx', 'nginx', ['-p', d, '-c', join(d, 'nginx.conf'), '-e', 'stderr']);
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
