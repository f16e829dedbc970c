import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.js';
import { http } from '../util/node-http.js';
import type { Health } from './health.js';
import { limited } from '../log/limited.js';

export interface StatusSource {
  health(): Health;
  metrics(): string;
}

/** /healthz and /metrics on a local address (loopback by default). */
export class StatusServer {
  private server: Server | undefined;

  constructor(
    private readonly listen: string,
    private readonly source: StatusSource,
    private readonly logger: Logger,
  ) {}

  /** Resolves with the bound address; a busy port is logged, not fatal: reporting matters more. */
  async start(): Promise<string | undefined> {
    if (this.listen === 'off') return undefined;
    const match = /^(.+):(\d+)$/.exec(this.listen)!;
    const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
    const server = http.createServer((req, res) => this.handle(req, res));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(Number(match[2]), host, () => resolve());
      });
    } catch (err) {
      this.logger.error(
        { listen: this.listen, err: (err as Error).message },
        'the status endpoint could not listen; /healthz and /metrics are off. Set DEVICE_AGENT_STATUS_LISTEN to a free HOST:PORT or off',
      );
      return undefined;
    }
    this.server = server;
    const addr = server.address() as AddressInfo;
    const bound = `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
    this.logger.info({ listen: bound }, 'status endpoint listening (/healthz, /metrics)');
    return bound;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    try {
      if (path === '/healthz') {
        const health = this.source.health();
        res.writeHead(health.ok ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(health.ok ? 'ok\n' : health.reasons.join('\n') + '\n');
      } else if (path === '/metrics') {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(this.source.metrics());
      } else {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('try /healthz or /metrics\n');
      }
    } catch (err) {
      limited(this.logger).error('status-endpoint-failed', { err: (err as Error).message }, 'status endpoint failed to answer');
      res.writeHead(500).end();
    }
  }
}
