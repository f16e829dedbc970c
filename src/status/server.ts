import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log/logger.js';
import type { TLSSocket } from 'node:tls';
import { http, https } from '../util/node-http.js';
import { BasicAuth, loadWebConfig, type AuthAnswer, type WebConfig } from './web-config.js';
import type { Health } from './health.js';
import { limited } from '../log/limited.js';
import { StateFile } from '../config/state-file.js';
import { parseEndpointState, STATUS_NODE_HEADER, STATUS_SERVER_HEADER, type StatusEndpointState } from './endpoint-state.js';
import { hostAllower, hostOf } from './allowed-hosts.js';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import { reloadTls } from './tls-reload.js';
import { processIdentity } from '../util/process-identity.js';
import { PageServer } from './page-serve.js';

export interface StatusSource {
  health(): Health;
  /** The /metrics text (prom-client writes it asynchronously). */
  metrics(): string | Promise<string>;
  /** The status page's data: the rack's, or the phone's of this udid (undefined when no row has it); no page without it. */
  page?(udid?: string): unknown;
  /** Changes when the rack's data may have (page-serve.ts makes it again only then). */
  pageVersion?(): string;
}

export interface StatusServerOptions {
  /** Where the daemon keeps whether its endpoint listens (the state directory's status-endpoint.json), for `doctor`. */
  stateFile?: string;
  /** How long after a failed listen it tries again. */
  retryMs?: number;
  /** node_exporter's web configuration file: TLS and basic authentication (statusWebConfigFile). */
  webConfigFile?: string;
  /** statusHosts: Host names answered besides IP literals, loopback names, the listen host and this machine's name. */
  hosts?: readonly string[];
  /** How often at most a connection looks whether the certificate or key file changed (default 1 s). */
  tlsCheckMs?: number;
  /** The agent's node id, said in a header of each answer past the Host check and authentication (STATUS_NODE_HEADER). */
  nodeId?: string;
}

const BUSY_LINE_EVERY_MS = 60_000;

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };

/** A port held by another process is often freed soon (a restart racing its predecessor): try again this often. */
const RETRY_MS = 30_000;

/** /healthz, /metrics and the status page (page-serve.ts) on a local address (loopback by default). */
export class StatusServer {
  private server: Server | undefined;
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastProblem: string | undefined;
  private readonly web: WebConfig;
  /** Who this process is past its pid, kept beside it for `doctor` (read once: it does not change). */
  private readonly started = processIdentity(process.pid);
  /** Whether it listens, kept for `doctor`, which cannot ask an endpoint that is not there; a failure to keep it costs nothing more. */
  private readonly kept: StateFile<StatusEndpointState> | undefined;
  private readonly auth: BasicAuth;
  private readonly hostAllowed: (host: string | undefined) => boolean;
  private busySaidAt = -Infinity;
  private busyAnswers = 0;
  private readonly pages: PageServer | undefined;
  /** The host of HOST:PORT, brackets off an IPv6 address; '' when off. */
  private readonly listenHost: string;

  /** Throws a ConfigError for a web configuration file it cannot use: a start without the asked TLS or authentication would expose the endpoint. */
  constructor(
    private readonly listen: string,
    private readonly source: StatusSource,
    private readonly logger: Logger,
    private readonly options: StatusServerOptions = {},
  ) {
    this.kept =
      options.stateFile === undefined
        ? undefined
        : new StateFile(
            options.stateFile,
            {
              what: "the status endpoint's state",
              maxBytes: 64 * 1024,
              parse: parseEndpointState,
              text: (state) => JSON.stringify(state) + '\n',
              lost: '',
              unsaved: "the endpoint works, but doctor cannot say why it is off when it is. Make the state directory writable for the agent's user",
            },
            logger,
          );
    this.web = options.webConfigFile && listen !== 'off' ? loadWebConfig(options.webConfigFile) : { users: new Map() };
    this.auth = new BasicAuth(this.web.users);
    this.pages =
      source.page &&
      new PageServer(
        (udid) => source.page!(udid),
        () => source.pageVersion?.() ?? '',
      );
    this.listenHost = (/^(.+):\d+$/.exec(listen)?.[1] ?? '').replace(/^\[(.*)\]$/, '$1');
    this.hostAllowed = hostAllower({ listenHost: this.listenHost, hostname: hostname(), allowed: options.hosts ?? [] });
  }

  /** The bound address, or undefined: reporting matters more, so the daemon goes on, says so once, keeps it for `doctor`, retries. */
  async start() {
    this.stopped = false;
    if (this.listen === 'off') {
      this.keep({ listen: 'off', listening: false });
      return undefined;
    }
    return this.tryListen();
  }

  private async tryListen() {
    const server = this.createServer();
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(Number(/:(\d+)$/.exec(this.listen)![1]), this.listenHost, () => resolve());
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
    this.logger.info(
      { listen: bound, tls: Boolean(this.web.tls), basicAuth: this.auth.required, ...(this.web.tls && { clientCerts: this.web.tls.clientAuth }) },
      'status endpoint listening (/healthz, /metrics)',
    );
    return bound;
  }

  async stop() {
    this.stopped = true;
    clearTimeout(this.retry);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private keep(state: Omit<StatusEndpointState, 'pid' | 'started' | 'since'>) {
    this.kept?.save({ pid: process.pid, started: this.started, since: new Date().toISOString(), ...state });
  }

  private createServer() {
    const handler = (req: IncomingMessage, res: ServerResponse) => void this.admit(req, res);
    const tls = this.web.tls;
    if (!tls) return http.createServer(handler);
    const asks = tls.clientAuth !== 'NoClientCert';
    const base = { ...(tls.ca && { ca: tls.ca }), minVersion: tls.minVersion };
    const server = https.createServer(
      { cert: tls.cert, key: tls.key, ...base, requestCert: asks, rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert' },
      handler,
    );
    // A rotated certificate (certbot, short-lived ones) is served without a restart.
    reloadTls(server, tls, base, this.logger, this.options.tlsCheckMs);
    return server;
  }

  /** The client certificate and the password the web config asks for, then the answer. */
  private async admit(req: IncomingMessage, res: ServerResponse) {
    // Says whose endpoint this is: doctor and a post-check tell it from another program on the port.
    res.setHeader('server', STATUS_SERVER_HEADER);
    // Before anything else, authentication included: a page that rebound a name of its own to this host learns nothing.
    if (!this.hostAllowed(req.headers.host)) {
      const host = hostOf(req.headers.host ?? '') ?? 'not a host name';
      limited(this.logger).warn(
        'status-host-refused',
        { host: host.slice(0, 64) },
        `the status endpoint refused a request for Host ${JSON.stringify(host.slice(0, 64))} (421): it answers IP addresses, loopback names, ` +
          "statusListen's host and this host's name. A scraper or reverse proxy that uses this name: add it to statusHosts (DEVICE_AGENT_STATUS_HOSTS)",
        host.slice(0, 64),
      );
      res.writeHead(421, { ...TEXT, connection: 'close' }).end('Misdirected Request\n');
      return;
    }
    const clientAuth = this.web.tls?.clientAuth;
    const socket = req.socket as TLSSocket;
    const given = () => Object.keys(socket.getPeerCertificate?.() ?? {}).length > 0;
    if ((clientAuth === 'RequireAnyClientCert' && !given()) || (clientAuth === 'VerifyClientCertIfGiven' && given() && !socket.authorized)) {
      res.writeHead(403, TEXT).end('a client certificate is required\n');
      return;
    }
    if (this.auth.required) {
      // A malformed header is a refusal, never a crash of the endpoint.
      const answer = await this.auth.check(req.headers.authorization).catch((): AuthAnswer => ({ kind: 'refused' }));
      if (answer.kind === 'busy') {
        this.sayBusy();
        res.writeHead(429, { 'retry-after': String(answer.retryAfterSeconds), ...TEXT }).end('Too Many Requests\n');
        return;
      }
      if (answer.kind !== 'allowed') {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="device-agent", charset="UTF-8"', ...TEXT }).end('Unauthorized\n');
        return;
      }
    }
    await this.handle(req, res);
  }

  /** A flood goes on for minutes: one line a minute at most, with how many were answered 429 since the last. */
  private sayBusy() {
    this.busyAnswers++;
    const now = performance.now();
    if (now - this.busySaidAt < BUSY_LINE_EVERY_MS) return;
    this.logger.warn(
      { answered429: this.busyAnswers },
      'the status endpoint answered 429: more password checks were asked than it makes in a second (wrong passwords from some client?); ' +
        'a scraper whose password passed once is still answered. Find the client sending wrong passwords, or let fewer clients reach statusListen',
    );
    this.busySaidAt = now;
    this.busyAnswers = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    // Whose agent this is, for doctor: only to whom may read /metrics, which names it too.
    if (this.options.nodeId !== undefined) res.setHeader(STATUS_NODE_HEADER, encodeURIComponent(this.options.nodeId));
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    // Each answer is made whole before its head is written: a throwing view is a 500, never a second head (which would end the daemon).
    try {
      if (path === '/healthz') {
        const health = this.source.health();
        // A status line only: the reasons' details (a proxy's address, the cloud's words) stay in the log and doctor.
        const body = health.ok ? 'ok\n' : `unhealthy: ${health.brief.join('; ')}\n`;
        res.writeHead(health.ok ? 200 : 503, TEXT).end(body);
      } else if (path === '/metrics') {
        const body = await this.source.metrics();
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(body);
      } else if (!this.pages?.answer(req, res, path!)) {
        res.writeHead(404, TEXT).end(`try ${this.pages ? '/, ' : ''}/healthz or /metrics\n`);
      }
    } catch (err) {
      limited(this.logger).error(
        'status-endpoint-failed',
        { path, err: (err as Error).message },
        `the status endpoint failed to answer ${path}: a bug in the agent, not a fault of the phones or the host; it answered 500 and keeps serving. Report it to the agent's maintainers with this line`,
      );
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  }
}

function bindProblem(err: NodeJS.ErrnoException, listen: string) {
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
