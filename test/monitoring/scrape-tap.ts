import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A relay between Prometheus and one agent's /metrics that keeps what each
// scrape read: the agent's text as it served it, passed on unchanged but
// for one line added at its end, `tap_scrape_sequence N`, the scrape's
// number. Prometheus stores that sample with the scrape's own timestamp, so
// a test learns from Prometheus which text it read at each instant, and can
// say from that text alone what a query must answer.

export const SEQUENCE = 'tap_scrape_sequence';

export interface TappedScrape {
  /** The agent's /metrics text as it served it. */
  text: string;
  /** When the answer was sent in full (ms; Infinity until then): Prometheus has it by then, or soon after. */
  sentAt: number;
}

export class ScrapeTap {
  readonly scrapes = new Map<number, TappedScrape>();
  private server: http.Server | undefined;
  private sequence = 0;
  /** HOST:PORT that Prometheus scrapes: the instance label of the agent's series. */
  address = '';

  constructor(private readonly agentAddress: string) {}

  async start(): Promise<void> {
    const server = http.createServer((req, res) => {
      if (req.url !== '/metrics') return void res.writeHead(404).end();
      fetch(`http://${this.agentAddress}/metrics`)
        .then(async (answer) => {
          const text = await answer.text();
          if (!answer.ok) throw new Error(`the agent answered ${answer.status}`);
          const n = ++this.sequence;
          const scrape = { text, sentAt: Infinity };
          this.scrapes.set(n, scrape);
          res.writeHead(200, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
          res.end(`${text}# TYPE ${SEQUENCE} gauge\n${SEQUENCE} ${n}\n`, () => (scrape.sentAt = Date.now()));
        })
        .catch((err: unknown) => res.writeHead(502).end(String(err)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  }
}
