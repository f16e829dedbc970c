// The status page on the status server (/, beside /metrics and /healthz, behind the same web configuration): its shell,
// style and script, and its data (/api/devices, /api/phone?udid=). Each answer carries an ETag, and one whose ETag the
// client sends is 304 with no body; gzip where the client takes it. However many pages watch, the rack's data is made
// again only when its source's version changes (a report, the minute), a phone's at most once each FRESH_MS, and
// nothing at all while none watches (nothing runs between questions). A Content-Security-Policy lets no inline script,
// and nothing from another origin, run. Read-only: every path is a GET.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { projectRoot } from '../util/package.js';
import { PAGE_CSS, PAGE_HTML } from './page/shell.js';

/** A phone's data is made again when asked this long after it was made: with the page's POLL_MS and an answer's 300 ms, a change shows within 2 s. */
export const FRESH_MS = 700;

const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

interface Made {
  /** When it was made (a phone's), or the version it was made at (the rack's). */
  at: number | string;
  etag: string;
  body: Buffer;
  gz: Buffer;
}

function made(body: string, at: number | string, before?: Made) {
  const bytes = Buffer.from(body);
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
  // Unchanged: the gzip made before serves again.
  return before?.etag === etag ? { ...before, at } : { at, etag, body: bytes, gz: gzipSync(bytes) };
}

/** The page's files, each made at its first question: the shell, the style, and the script as tsc compiled it. */
const ASSETS: Record<string, { type: string; text: () => string }> = {
  '/': { type: 'text/html; charset=utf-8', text: () => PAGE_HTML },
  '/rack.css': { type: 'text/css; charset=utf-8', text: () => PAGE_CSS },
  '/rack.js': { type: 'text/javascript; charset=utf-8', text: () => readFileSync(join(projectRoot, 'dist/src/status/page/rack.js'), 'utf8') },
};
/** The pages' data kept at most: the rack and the phones' pages being watched. */
const KEPT = 32;

export class PageServer {
  private readonly assets = new Map<string, Made>();
  private readonly data = new Map<string, Made>();

  constructor(
    /** The rack's data, or a phone's (undefined when no row has that udid). */
    private readonly page: (udid?: string) => unknown,
    /** Changes when the rack's data may have. */
    private readonly version: () => string,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Answers the page's paths; false for any other. */
  answer(req: IncomingMessage, res: ServerResponse, path: string) {
    const asset = Object.hasOwn(ASSETS, path) ? ASSETS[path]! : undefined;
    if (asset) {
      let m = this.assets.get(path);
      if (!m) this.assets.set(path, (m = made(asset.text(), 0)));
      const page: Record<string, string> = path === '/' ? { 'content-security-policy': PAGE_CSP, 'referrer-policy': 'no-referrer' } : {};
      this.send(req, res, m, asset.type, page);
      return true;
    }
    if (path !== '/api/devices' && path !== '/api/phone') return false;
    const udid = path === '/api/phone' ? (new URL(req.url ?? '/', 'http://x').searchParams.get('udid') ?? '') : undefined;
    const key = udid === undefined ? '' : `phone ${udid}`;
    const now = udid === undefined ? this.version() : this.now();
    let kept = this.data.get(key);
    if (!kept || (typeof now === 'string' ? kept.at !== now : now - (kept.at as number) >= FRESH_MS)) {
      const data = this.page(udid);
      if (data === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('no phone of this udid in the last report\n');
        return true;
      }
      kept = made(JSON.stringify(data), now, kept);
      this.data.delete(key);
      if (this.data.size >= KEPT) this.data.delete(this.data.keys().next().value!);
      this.data.set(key, kept);
    }
    this.send(req, res, kept, 'application/json; charset=utf-8');
    return true;
  }

  private send(req: IncomingMessage, res: ServerResponse, m: Made, type: string, more: Record<string, string> = {}) {
    const head = { 'content-type': type, 'cache-control': 'no-cache', etag: m.etag, vary: 'accept-encoding', 'x-content-type-options': 'nosniff', ...more };
    if (req.headers['if-none-match'] === m.etag) {
      res.writeHead(304, head).end();
      return;
    }
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? m.gz : m.body;
    res.writeHead(200, { ...head, ...(gzip && { 'content-encoding': 'gzip' }), 'content-length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
