import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.js';
import { http } from '../util/node-http.js';
import type { Health } from './health.js';
import { limited } from '../log/limited.js';
import { writeAtomically } from '../util/atomic-file.js';
import { STATUS_SERVER_HEADER, type StatusEndpointState } from './endpoint-state.js';

export interface StatusSource {
  health(): Health;
  metrics(): string;
}

export interface StatusServerOptions {
  /** Where the daemon keeps whether its endpoint listens (the state directory's status-endpoint.json), for `doctor`. */
  stateFile?: string;
  /** How long after a failed listen it tries again. */
  retryMs?: number;
}

/** A port held by another process is often freed soon (a restart racing its predecessor): try again this often. */
const RETRY_MS = 30_000;

/** /healthz and /metrics on a local address (loopback by default). */
export class StatusServer {
  private server: Server | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastProblem: string | undefined;

  constructor(
    private readonly listen: string,
    private readonly source: StatusSource,
    private readonly logger: Logger,
    private readonly options: StatusServerOptions = {},
  ) {}

  /**
   * Resolves with the bound address, or undefined when it could not listen:
   * reporting matters more than the endpoint, so the daemon goes on, says so
   * in one line, keeps it in the state file for `doctor`, and tries again.
   */
  async start(): Promise<string | undefined> {
    this.stopped = false;
    if (this.listen === 'off') {
      this.keep({ listen: 'off', listening: false });
      return undefined;
    }
    return this.tryListen();
  }

  private async tryListen(): Promise<string | undefined> {
    const match = /^(.+):(\d+)$/.exec(this.listen)!;
    const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
    const server = http.createServer((req, res) => this.handle(req, res));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(Number(match[2]), host, () => resolve());
      });
    } catch (err) {
      const problem = bindProblem(err as NodeJS.ErrnoException, this.listen);
      if (problem !== this.lastProblem) {
        this.logger.error(
          { listen: this.listen, err: (err as Error).message, code: (err as NodeJS.ErrnoException).code },
          `the status endpoint cannot listen on ${this.listen}: ${problem}; /healthz and /metrics are off, and it tries again every ${(this.options.retryMs ?? RETRY_MS) / 1000} s. ` +
            'Free the port, or set DEVICE_AGENT_STATUS_LISTEN to a free HOST:PORT or off',
        );
      }
      this.lastProblem = problem;
      this.keep({ listen: this.listen, listening: false, problem });
      if (!this.stopped) {
        this.retry = setTimeout(() => void this.tryListen(), this.options.retryMs ?? RETRY_MS);
        this.retry.unref();
      }
      return undefined;
    }
    if (this.stopped) {
      server.close();
      return undefined;
    }
    this.server = server;
    const addr = server.address() as AddressInfo;
    const bound = `${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
    this.lastProblem = undefined;
    this.keep({ listen: this.listen, listening: true, bound });
    this.logger.info({ listen: bound }, 'status endpoint listening (/healthz, /metrics)');
    return bound;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Keeps the endpoint's state for `doctor`, which cannot ask an endpoint that is not there; a failure to keep it costs nothing more. */
  private keep(state: Omit<StatusEndpointState, 'pid' | 'since'>): void {
    if (!this.options.stateFile) return;
    try {
      writeAtomically(this.options.stateFile, JSON.stringify({ pid: process.pid, since: new Date().toISOString(), ...state }) + '\n');
    } catch (err) {
      limited(this.logger).warn('state-dir-problem', { file: this.options.stateFile }, `cannot keep the status endpoint's state: ${(err as Error).message}`);
    }
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    // Says whose endpoint this is: doctor and a post-check tell it from another program on the port.
    res.setHeader('server', STATUS_SERVER_HEADER);
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

function bindProblem(err: NodeJS.ErrnoException, listen: string): string {
  const port = /:(\d+)$/.exec(listen)?.[1];
  switch (err.code) {
    case 'EADDRINUSE':
      return `the port is held by another process (see which: ss -ltnp 'sport = :${port}')`;
    case 'EACCES':
      return `not allowed to listen on port ${port} (below 1024 needs a capability)`;
    case 'EADDRNOTAVAIL':
      return "the address is not one of this host's";
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve';
    default:
      return err.message;
  }
}
