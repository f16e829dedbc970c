// Test doubles of the host's iOS 17 tunnel daemons: real HTTP servers that
// answer what each daemon's source answers (test/features/ios-developer/
// fixtures/SOURCES.md names the sources), with the tunnels a test sets.
// go-ios's agent (ios/tunnel/tunnel_api.go `tunnelInfoMux`): GET /health,
// /ready, /tunnels (a JSON array and a newline, Go's json.Encoder), GET and
// DELETE /tunnel/UDID, 405 to other methods. pymobiledevice3's tunneld
// (pymobiledevice3/tunneld/server.py): GET / (udid to tunnels, compact JSON
// as FastAPI writes it), /hello, /cancel?udid=. Faults: `refusing` (500 with
// a line of text, as the agent's http.Error), `garbage` (a proxy's HTML
// page), `hang` (accepts, never answers); stop() is a daemon down.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface DaemonTunnel {
  udid: string;
  address: string;
  port: number;
  userspace?: boolean;
}

/**
 * refusing: 500 and a line; garbage: a proxy's HTML page with 200; hang: never answers; close: the connection closed
 * before any answer; cut: the head and half the listing, then closed; slow: the answer 500 ms late; flood: a listing
 * of 2 MB (far past what the agent reads).
 */
export type DaemonFault = 'refusing' | 'garbage' | 'hang' | 'close' | 'cut' | 'slow' | 'flood' | undefined;

abstract class TunnelDaemonDouble {
  tunnels: DaemonTunnel[] = [];
  fault: DaemonFault;
  /** Requests seen, as "METHOD path". */
  readonly requests: string[] = [];
  private server: http.Server | undefined;
  private listenPort = 0;
  private readonly hung = new Set<http.ServerResponse>();

  get port(): number {
    return this.listenPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.listenPort}`;
  }

  /** Listens on `port` (0: a free one; the same port again after stop() for a restart). */
  async start(port = this.listenPort): Promise<void> {
    const server = http.createServer((req, res) => {
      this.requests.push(`${req.method} ${req.url}`);
      if (this.fault === 'hang') {
        this.hung.add(res);
        return;
      }
      if (this.fault === 'refusing') return text(res, 500, 'failed to list tunnels: internal error\n');
      if (this.fault === 'garbage') return text(res, 502, '<html><body>502 Bad Gateway</body></html>', 'text/html', 200);
      if (this.fault === 'close') return void req.socket.destroy();
      if (this.fault === 'cut') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
        res.write('[{"address":"fdb2:7531:10d5::1","rsd');
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      if (this.fault === 'flood')
        return text(res, 200, `[${'{"address":"fd00::1","rsdPort":1,"udid":"00008110-001C19A43420401E"},'.repeat(30_000)}null]`, 'application/json');
      if (this.fault === 'slow') return void setTimeout(() => this.serve(req, res), 500);
      this.serve(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.listenPort = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.hung.clear();
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  /** A new tunnel for the phone, as a daemon makes one: a fresh fdXX:: address and RSD port. */
  newTunnel(udid: string, extra: Partial<DaemonTunnel> = {}): DaemonTunnel {
    const r = () => Math.floor(Math.random() * 0xffff).toString(16);
    const tunnel = { udid, address: `fd${r().slice(0, 2)}:${r()}:${r()}::1`, port: 49152 + Math.floor(Math.random() * 16000), ...extra };
    this.tunnels.push(tunnel);
    return tunnel;
  }

  protected abstract serve(req: http.IncomingMessage, res: http.ServerResponse): void;
}

function text(res: http.ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8', sent = status): void {
  res.writeHead(sent, { 'content-type': type });
  res.end(body);
}

export class GoIosAgentDouble extends TunnelDaemonDouble {
  protected serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = (req.url ?? '').split('?')[0]!;
    if (path === '/health' || path === '/ready') return void (req.method === 'GET' ? text(res, 200, '') : text(res, 405, ''));
    if (path === '/tunnels') {
      if (req.method !== 'GET') return text(res, 405, '');
      return text(res, 200, JSON.stringify(this.tunnels.map(goTunnel)) + '\n', 'application/json');
    }
    if (path.startsWith('/tunnel/')) {
      const udid = path.slice('/tunnel/'.length);
      const found = this.tunnels.filter((t) => t.udid === udid);
      if (req.method === 'GET')
        return found.length ? text(res, 200, JSON.stringify(goTunnel(found[0]!)) + '\n', 'application/json') : text(res, 404, 'tunnel not found\n');
      if (req.method === 'DELETE') {
        if (!found.length) return text(res, 404, 'tunnel not found\n');
        this.tunnels = this.tunnels.filter((t) => t.udid !== udid);
        return text(res, 204, '');
      }
      return text(res, 405, '');
    }
    text(res, 404, '404 page not found\n');
  }
}

function goTunnel(t: DaemonTunnel): Record<string, unknown> {
  return { address: t.address, rsdPort: t.port, udid: t.udid, userspaceTun: t.userspace ?? false, userspaceTunPort: 0 };
}

export class TunneldDouble extends TunnelDaemonDouble {
  protected serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method !== 'GET') return text(res, 405, '{"detail":"Method Not Allowed"}', 'application/json');
    if (url.pathname === '/') {
      const listing: Record<string, unknown[]> = {};
      for (const t of this.tunnels) (listing[t.udid] ??= []).push({ 'tunnel-address': t.address, 'tunnel-port': t.port, interface: `usbmux-${t.udid}-USB` });
      return text(res, 200, JSON.stringify(listing), 'application/json');
    }
    if (url.pathname === '/hello') return text(res, 200, JSON.stringify({ message: "Hello, I'm alive" }, null, 1).replace(/\n\s*/g, ' '), 'application/json');
    if (url.pathname === '/cancel') {
      const udid = url.searchParams.get('udid') ?? '';
      this.tunnels = this.tunnels.filter((t) => t.udid !== udid);
      return text(res, 200, JSON.stringify({ operation: 'cancel', udid, data: true, message: `tunnel ${udid} Canceled ...` }), 'application/json');
    }
    text(res, 404, '{"detail":"Not Found"}', 'application/json');
  }
}
