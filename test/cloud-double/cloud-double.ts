// A real HTTP server on 127.0.0.1 that plays the device-testing cloud's v1
// interface (docs/reference/cloud-api-v1.md) for tests: PUT /devices with Basic
// auth and a field-by-field schema check, the GET /devices family answered
// from what was reported, every request recorded, and programmable faults
// (statuses, 429 + Retry-After, delays, trickling bodies, connection resets,
// HTML or garbage instead of JSON, empty bodies). With `tls` it serves https
// with the certificate given (a private CA's, test/cloud/proxy/private-ca.ts).

import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { FailedDevice, ReportBody } from '../../src/cloud/types.js';
import { validateReportBody, type Violation } from './schema.js';
import { InventoryStore, matchesQuery, toDevice, type StoredDevice } from './store.js';

export const DEFAULT_USERNAME = 'agent@example.test';
export const DEFAULT_API_KEY = 'test-api-key-3f9a1c7e5b2d';

export interface CloudDoubleOptions {
  /** Accepted Basic credentials: the username, or the email when given, with the API key. */
  username?: string;
  email?: string;
  apiKey?: string;
  /** Added to the real clock for the Date header, to simulate a skewed cloud clock. */
  clockOffsetMs?: number;
  /** Answer 400 for fields the contract does not name (default true: catches typos in the agent). */
  rejectUnknownFields?: boolean;
  /** DeviceInfo fields that must be present, else the device is answered in failedDevices. */
  requiredCapabilities?: string[];
  /** Serve https with this key and certificate (PEM) instead of http. */
  tls?: { key: string; cert: string };
  /** The host name of the base URL (default 127.0.0.1); it still listens on 127.0.0.1 only. */
  urlHost?: string;
  /**
   * Store text as PostgreSQL does (default true): a report holding \u0000 or a
   * lone surrogate anywhere fails as a whole with 500, as a cloud whose jsonb
   * insert fails ("unsupported Unicode escape sequence") answers.
   */
  postgresText?: boolean;
  /**
   * Answer 413 to a request body larger than this, as nginx does past its
   * client_max_body_size (1 MiB by default): an HTML page, the connection
   * closed, the body not read. Default: the double's own 10 MiB guard.
   */
  maxBodyBytes?: number;
}

export interface RecordedRequest {
  method: string;
  /** Path relative to the v1 root, without the query, e.g. "/devices" (the full path when outside /v1). */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body; undefined when empty or not JSON. */
  body: unknown;
  /** Epoch ms (real clock) when the request arrived. */
  receivedAt: number;
  /** What the double did with it; set once decided (before a delayed or trickled answer is sent). */
  answer?: { status?: number; fault?: FaultKind };
  /** Epoch ms when it was decided: a delayed report is stored then, not when it arrived. */
  decidedAt?: number;
}

export type FaultKind = 'status' | 'reset' | 'html' | 'garbage' | 'empty' | 'delay' | 'cut';

export interface FaultOptions {
  /** How many requests the fault applies to (default 1; Infinity makes it persistent). */
  times?: number;
  /** Only requests with this method (e.g. "PUT") consume the fault. */
  method?: string;
  /** Only requests whose path (relative to the v1 root) matches consume the fault. */
  path?: RegExp;
}

export interface StatusFaultOptions extends FaultOptions {
  status: number;
  /** Retry-After value: seconds, an HTTP-date string, or a Date. */
  retryAfter?: number | string | Date;
  /** Body to send instead of the default JSON error. */
  body?: string;
}

type Fault =
  | { kind: 'status'; status: number; retryAfter?: number | string | Date; body?: string }
  | { kind: 'reset' }
  | { kind: 'html' }
  | { kind: 'garbage'; body: string }
  | { kind: 'empty' }
  | { kind: 'delay'; ms: number }
  | { kind: 'cut' };

interface QueuedFault {
  fault: Fault;
  remaining: number;
  method?: string;
  path?: RegExp;
}

const MAX_BODY_BYTES = 10 * 1024 * 1024;

const compress = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

const CAPTIVE_PORTAL_HTML =
  '<!DOCTYPE html><html><head><title>Network Login</title></head>' +
  '<body><h1>Welcome to Guest Wi-Fi</h1><form method="post" action="/login">' +
  '<input name="user"><input name="password" type="password"><button>Log in</button>' +
  '</form></body></html>';

export class CloudDouble {
  readonly requests: RecordedRequest[] = [];
  readonly store = new InventoryStore();

  private readonly options: Required<Omit<CloudDoubleOptions, 'email' | 'tls' | 'urlHost' | 'maxBodyBytes'>> &
    Pick<CloudDoubleOptions, 'email' | 'tls' | 'urlHost' | 'maxBodyBytes'>;
  private server: Server | undefined;
  private baseUrl: string | undefined;
  private faults: QueuedFault[] = [];
  private failedDevices = new Map<string, string>();
  /** Bookings the test switched, by device id (udid): they win over the store's. */
  private readonly bookings = new Map<string, boolean>();
  private extraFailed: ((body: ReportBody) => FailedDevice[]) | undefined;
  private delayMs = 0;
  private trickle: { intervalMs: number; chunkBytes: number } | undefined;
  private coding: 'gzip' | 'deflate' | 'br' | undefined;
  private readonly waiters = new Set<() => void>();
  /** Told at each request the double decides on, as it does: the chaos soak dates its truth by them. */
  onDecided: ((record: RecordedRequest) => void) | undefined;
  private stopping = new AbortController();

  constructor(options: CloudDoubleOptions = {}) {
    this.options = {
      username: options.username ?? DEFAULT_USERNAME,
      email: options.email,
      apiKey: options.apiKey ?? DEFAULT_API_KEY,
      clockOffsetMs: options.clockOffsetMs ?? 0,
      rejectUnknownFields: options.rejectUnknownFields ?? true,
      requiredCapabilities: options.requiredCapabilities ?? [],
      tls: options.tls,
      urlHost: options.urlHost,
      postgresText: options.postgresText ?? true,
      maxBodyBytes: options.maxBodyBytes,
    };
  }

  /** Listens on 127.0.0.1 on `port` (default: a free one); resolves with the v1 base URL. */
  async start(port = 0): Promise<string> {
    if (this.baseUrl) return this.baseUrl;
    this.stopping = new AbortController();
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent && !res.destroyed) this.json(res, 500, { error: 'double failed', detail: String(error) });
        else res.destroy();
      });
    };
    const { tls } = this.options;
    const server: Server = tls ? createTlsServer({ key: tls.key, cert: tls.cert }, handler) : createServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.baseUrl = `${tls ? 'https' : 'http'}://${this.options.urlHost ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}/v1`;
    return this.baseUrl;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.baseUrl = undefined;
    this.stopping.abort();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  get url(): string {
    if (!this.baseUrl) throw new Error('CloudDouble is not started');
    return this.baseUrl;
  }

  get username(): string {
    return this.options.username;
  }

  get apiKey(): string {
    return this.options.apiKey;
  }

  // ---- programmable behaviour ------------------------------------------------

  /** Answers the next request(s) with this status (and optional Retry-After / body). */
  failNext(options: StatusFaultOptions): this {
    const { status, retryAfter, body } = options;
    return this.queue({ kind: 'status', status, retryAfter, body }, options);
  }

  /** Destroys the socket of the next request(s) without answering. */
  resetConnectionNext(times = 1, options: Omit<FaultOptions, 'times'> = {}): this {
    return this.queue({ kind: 'reset' }, { ...options, times });
  }

  /** Answers 200 text/html (a captive portal or a misrouted proxy). */
  answerHtmlNext(times = 1, options: Omit<FaultOptions, 'times'> = {}): this {
    return this.queue({ kind: 'html' }, { ...options, times });
  }

  /** Answers 200 application/json with a body that does not parse (default: truncated JSON). */
  answerGarbageNext(times = 1, body = '{"failedDevices":[{"udid":"', options: Omit<FaultOptions, 'times'> = {}): this {
    return this.queue({ kind: 'garbage', body }, { ...options, times });
  }

  /** Sends 200 headers announcing the full body, half of it, then closes the connection (a proxy cutting off). */
  cutBodyNext(times = 1, options: Omit<FaultOptions, 'times'> = {}): this {
    return this.queue({ kind: 'cut' }, { ...options, times });
  }

  /** Answers 200 with an empty body. */
  answerEmptyNext(times = 1, options: Omit<FaultOptions, 'times'> = {}): this {
    return this.queue({ kind: 'empty' }, { ...options, times });
  }

  /** Waits this long before the headers of the next request(s), then answers normally. */
  delayNext(ms: number, times = 1, options: Omit<FaultOptions, 'times'> = {}): this {
    return this.queue({ kind: 'delay', ms }, { ...options, times });
  }

  /** Persistent delay before the headers of every answer (0 to turn off). */
  setDelay(ms: number): this {
    this.delayMs = ms;
    return this;
  }

  /** Persistent slow body: after the headers, the body is sent chunkBytes at a time every intervalMs (0 to turn off). */
  setTrickle(intervalMs: number, chunkBytes = 4): this {
    this.trickle = intervalMs > 0 ? { intervalMs, chunkBytes } : undefined;
    return this;
  }

  /**
   * Persistently compresses every answer with a body in this content coding,
   * whatever the request's Accept-Encoding says (RFC 9110 lets a server do
   * so; a gateway configured to compress JSON does); undefined turns it off.
   */
  compressAnswers(coding: 'gzip' | 'deflate' | 'br' | undefined): this {
    this.coding = coding;
    return this;
  }

  /** Persistently answers these udids in failedDevices whenever a report carries them. */
  failDevices(devices: FailedDevice[]): this {
    for (const d of devices) this.failedDevices.set(d.udid, d.message);
    return this;
  }

  /**
   * Persistently adds these entries to the failedDevices of every accepted
   * PUT /devices, whether or not the report carried their udids (a cloud that
   * answers for another host, or a buggy one). A function is asked per report.
   */
  answerFailedDevices(devices: FailedDevice[] | ((body: ReportBody) => FailedDevice[])): this {
    this.extraFailed = typeof devices === 'function' ? devices : () => devices;
    return this;
  }

  /**
   * Books a device (or ends its booking) as GET /devices/{id}/status
   * answers it, by udid, whether or not it was reported yet; undefined
   * goes back to the store's (not booked).
   */
  setBooked(udid: string, booked: boolean | undefined): this {
    if (booked === undefined) this.bookings.delete(udid);
    else this.bookings.set(udid, booked);
    return this;
  }

  /** The GET /devices/{id}/status requests received, all or for one device id. */
  statusRequests(deviceId?: string): RecordedRequest[] {
    return this.requests.filter((r) => {
      const m = r.method === 'GET' ? /^\/devices\/([^/]+)\/status$/.exec(r.path) : null;
      return m !== null && (deviceId === undefined || decodeURIComponent(m[1]!) === deviceId);
    });
  }

  clearFailedDevices(udids?: string[]): this {
    if (udids) for (const u of udids) this.failedDevices.delete(u);
    else this.failedDevices.clear();
    return this;
  }

  setClockOffset(ms: number): this {
    this.options.clockOffsetMs = ms;
    return this;
  }

  /** Drops queued and persistent faults, delays, compression, programmed failedDevices and bookings. */
  resetFaults(): this {
    this.faults = [];
    this.bookings.clear();
    this.failedDevices.clear();
    this.extraFailed = undefined;
    this.delayMs = 0;
    this.trickle = undefined;
    this.coding = undefined;
    return this;
  }

  private queue(fault: Fault, options: FaultOptions): this {
    const remaining = options.times ?? 1;
    if (remaining > 0) this.faults.push({ fault, remaining, method: options.method?.toUpperCase(), path: options.path });
    return this;
  }

  private takeFault(method: string, path: string): Fault | undefined {
    const index = this.faults.findIndex((f) => (!f.method || f.method === method) && (!f.path || f.path.test(path)));
    const entry = this.faults[index];
    if (!entry) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.faults.splice(index, 1);
    return entry.fault;
  }

  // ---- assertions helpers ----------------------------------------------------

  putRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'PUT' && r.path === '/devices');
  }

  /** Bodies of the PUT /devices requests that were accepted (200). */
  acceptedReports(): ReportBody[] {
    return this.putRequests()
      .filter((r) => r.answer?.status === 200 && (r.answer.fault === undefined || r.answer.fault === 'delay'))
      .map((r) => r.body as ReportBody);
  }

  /** Resolves with the first PUT /devices (already seen or yet to come) that satisfies the predicate. */
  waitForPut(predicate: (request: RecordedRequest) => boolean = () => true, timeoutMs = 20_000): Promise<RecordedRequest> {
    const find = () => this.putRequests().find((r) => r.answer !== undefined && predicate(r));
    const found = find();
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = find();
        if (!hit) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        const puts = this.putRequests();
        const seen = puts.map((r) => r.answer?.fault ?? r.answer?.status ?? 'pending');
        reject(new Error(`no matching PUT /devices within ${timeoutMs} ms (seen: [${seen.join(', ')}]; the last: ${lastPuts(puts, Date.now())})`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }

  clearRequests(): void {
    this.requests.length = 0;
  }

  /** Stored devices as the cloud would list them. */
  devices(): StoredDevice[] {
    return this.store.all();
  }

  // ---- request handling ------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const receivedAt = Date.now();
    const url = new URL(req.url ?? '/', 'http://double.invalid');
    const method = (req.method ?? 'GET').toUpperCase();
    const limit = this.options.maxBodyBytes;
    if (limit !== undefined && Number(req.headers['content-length'] ?? 0) > limit) {
      this.requests.push({
        method,
        path: url.pathname.replace(/^\/v1(?=\/|$)/, '') || '/',
        query: url.searchParams,
        headers: req.headers,
        rawBody: '',
        body: undefined,
        receivedAt,
        answer: { status: 413 },
      });
      res.writeHead(413, { 'content-type': 'text/html', connection: 'close' });
      res.end(
        '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n',
      );
      req.resume();
      return;
    }
    const raw = await readBody(req, limit ?? MAX_BODY_BYTES);
    if (raw === undefined) {
      this.json(res, 413, { error: 'Payload Too Large', status: 413 });
      return;
    }
    const rawBody = raw.toString('utf8');
    const underV1 = url.pathname === '/v1' || url.pathname.startsWith('/v1/');
    const record: RecordedRequest = {
      method,
      path: underV1 ? url.pathname.slice(3) || '/' : url.pathname,
      query: url.searchParams,
      headers: req.headers,
      rawBody,
      body: parseJson(rawBody),
      receivedAt,
    };
    this.requests.push(record);

    const fault = this.takeFault(method, record.path);
    const delay = fault?.kind === 'delay' ? fault.ms : this.delayMs;
    if (fault && fault.kind !== 'delay') {
      this.decide(record, { fault: fault.kind, status: fault.kind === 'status' ? fault.status : fault.kind === 'reset' ? undefined : 200 });
    }
    if (delay > 0 && !(await this.sleep(delay))) return;
    if (fault && fault.kind !== 'delay') {
      this.applyFault(fault, req, res);
      return;
    }
    if (fault?.kind === 'delay') record.answer = { fault: 'delay' };
    this.route(record, underV1, res);
  }

  private decide(record: RecordedRequest, answer: RecordedRequest['answer']): void {
    record.answer = { ...record.answer, ...answer };
    record.decidedAt ??= Date.now();
    for (const waiter of [...this.waiters]) waiter();
    this.onDecided?.(record);
  }

  private applyFault(fault: Fault, req: IncomingMessage, res: ServerResponse): void {
    switch (fault.kind) {
      case 'reset':
        req.socket.destroy();
        return;
      case 'status': {
        const headers: Record<string, string> = {};
        if (fault.retryAfter !== undefined) headers['Retry-After'] = formatRetryAfter(fault.retryAfter);
        if (fault.body !== undefined) {
          this.send(res, fault.status, fault.body, { 'Content-Type': 'application/json', ...headers });
        } else {
          this.json(res, fault.status, { error: statusText(fault.status), status: fault.status }, headers);
        }
        return;
      }
      case 'html':
        this.send(res, 200, CAPTIVE_PORTAL_HTML, { 'Content-Type': 'text/html; charset=utf-8' });
        return;
      case 'garbage':
        this.send(res, 200, fault.body, { 'Content-Type': 'application/json' });
        return;
      case 'empty':
        this.send(res, 200, '', {});
        return;
      case 'cut': {
        const full = Buffer.from(JSON.stringify({ failedDevices: [] }));
        res.writeHead(200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': String(full.length),
          Date: this.dateHeader(),
        });
        res.write(full.subarray(0, Math.floor(full.length / 2)), () => res.destroy());
        return;
      }
      case 'delay':
        return;
    }
  }

  private route(record: RecordedRequest, underV1: boolean, res: ServerResponse): void {
    const finish = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      this.decide(record, { status });
      this.json(res, status, body, headers);
    };
    if (!underV1) {
      finish(404, { error: 'Not Found', status: 404 });
      return;
    }
    if (!this.authorized(record.headers.authorization)) {
      finish(401, { error: 'Unauthorized', status: 401 }, { 'WWW-Authenticate': 'Basic realm="device cloud"' });
      return;
    }
    const parts = record.path.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== 'devices') {
      finish(404, { error: 'Not Found', status: 404 });
      return;
    }
    if (record.method === 'PUT' && parts.length === 1) {
      const [status, body] = this.putDevices(record);
      finish(status, body);
      return;
    }
    if (record.method !== 'GET') {
      finish(405, { error: 'Method Not Allowed', status: 405 });
      return;
    }
    if (parts.length === 1) {
      const privateDevices = this.store
        .all()
        .map((stored) => ({ stored, device: toDevice(stored) }))
        .filter(({ stored, device }) => matchesQuery(device, stored, record.query))
        .map(({ device }) => device);
      finish(200, { privateDevices, favoriteDevices: [], cloudDevices: [] });
      return;
    }
    const booked = this.bookings.get(parts[1] ?? '');
    if (parts.length === 3 && parts[2] === 'status' && booked !== undefined) {
      const known = this.store.find(parts[1] ?? '');
      finish(200, { isBooked: booked, isOnline: known?.isOnline ?? false });
      return;
    }
    const stored = this.store.find(parts[1] ?? '');
    if (!stored) {
      finish(404, { error: 'Not Found', status: 404, message: `device ${parts[1]} not found` });
      return;
    }
    if (parts.length === 2) {
      finish(200, toDevice(stored));
    } else if (parts.length === 3 && parts[2] === 'status') {
      finish(200, { isBooked: stored.isBooked, isOnline: stored.isOnline });
    } else {
      finish(404, { error: 'Not Found', status: 404 });
    }
  }

  private putDevices(record: RecordedRequest): [number, unknown] {
    if (record.rawBody.length === 0) return [200, { failedDevices: [] }];
    const type = record.headers['content-type'] ?? '';
    if (!/^application\/json\b/i.test(type)) {
      return [415, { error: 'Unsupported Media Type', status: 415, message: 'Content-Type must be application/json' }];
    }
    if (record.body === undefined) {
      return [400, badRequest([{ path: '(body)', message: 'is not valid JSON' }])];
    }
    const violations = validateReportBody(record.body, { rejectUnknownFields: this.options.rejectUnknownFields });
    if (violations.length > 0) return [400, badRequest(violations)];
    if (this.options.postgresText && !storableText(record.body)) {
      return [500, { error: 'Internal Server Error', status: 500, message: 'unsupported Unicode escape sequence: \\u0000 cannot be converted to text' }];
    }
    const body = record.body as ReportBody;
    const failedDevices: FailedDevice[] = [];
    for (const device of body.devices ?? []) {
      const programmed = this.failedDevices.get(device.udid);
      const missing = this.options.requiredCapabilities.filter((f) => !(f in device));
      if (programmed !== undefined) failedDevices.push({ udid: device.udid, message: programmed });
      else if (missing.length > 0) {
        failedDevices.push({ udid: device.udid, message: `missing required capability: ${missing.join(', ')}` });
      }
    }
    this.store.put(body, new Set(failedDevices.map((d) => d.udid)), record.receivedAt);
    // A loop, not push(...): a test may program a list longer than the stack takes as arguments.
    if (this.extraFailed) for (const f of this.extraFailed(body)) failedDevices.push(f);
    return [200, { failedDevices }];
  }

  private authorized(header: string | undefined): boolean {
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
    if (!match?.[1]) return false;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const { username, email, apiKey } = this.options;
    return decoded === `${username}:${apiKey}` || (email !== undefined && decoded === `${email}:${apiKey}`);
  }

  // ---- writing answers -------------------------------------------------------

  private json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.send(res, status, JSON.stringify(body), { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  }

  private send(res: ServerResponse, status: number, body: string, headers: Record<string, string>): void {
    if (res.destroyed) return;
    const plain = Buffer.from(body, 'utf8');
    const coding = plain.length > 0 ? this.coding : undefined;
    const bytes = coding === undefined ? plain : compress[coding](plain);
    res.writeHead(status, {
      ...headers,
      ...(coding && { 'Content-Encoding': coding }),
      Date: this.dateHeader(),
      'Content-Length': String(bytes.length),
    });
    const trickle = this.trickle;
    if (!trickle || bytes.length === 0) {
      res.end(bytes);
      return;
    }
    res.flushHeaders();
    void this.trickleBody(res, bytes, trickle);
  }

  private async trickleBody(res: ServerResponse, bytes: Buffer, trickle: { intervalMs: number; chunkBytes: number }): Promise<void> {
    for (let offset = 0; offset < bytes.length; offset += trickle.chunkBytes) {
      if (res.destroyed) return;
      if (offset > 0 && !(await this.sleep(trickle.intervalMs))) return;
      if (res.destroyed) return;
      const chunk = bytes.subarray(offset, offset + trickle.chunkBytes);
      if (offset + trickle.chunkBytes >= bytes.length) res.end(chunk);
      else res.write(chunk);
    }
  }

  private dateHeader(): string {
    return new Date(Date.now() + this.options.clockOffsetMs).toUTCString();
  }

  /** Resolves true after ms, or false at once when the double stops. */
  private sleep(ms: number): Promise<boolean> {
    const signal = this.stopping.signal;
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        resolve(false);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** Whether PostgreSQL's text and jsonb could hold every string (keys included) of a value. */
function storableText(value: unknown): boolean {
  if (typeof value === 'string') return !value.includes('\u0000') && value.isWellFormed();
  if (Array.isArray(value)) return value.every(storableText);
  if (typeof value === 'object' && value !== null) return Object.entries(value).every(([k, v]) => storableText(k) && storableText(v));
  return true;
}

function badRequest(violations: Violation[]): unknown {
  return { error: 'Bad Request', status: 400, message: `${violations.length} field(s) violate the contract`, violations };
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function formatRetryAfter(value: number | string | Date): string {
  if (value instanceof Date) return value.toUTCString();
  return String(value);
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    408: 'Request Timeout',
    409: 'Conflict',
    413: 'Payload Too Large',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  };
  return texts[status] ?? `HTTP ${status}`;
}

/** The last few PUTs, each with its age and its devices' status (and the start of a message), for a failed wait's line. */
function lastPuts(puts: readonly RecordedRequest[], now: number): string {
  const devices = (r: RecordedRequest) => {
    const list = (r.body as Partial<ReportBody> | undefined)?.devices;
    return Array.isArray(list) ? list.map((d) => `${d.udid} ${d.status}${d.message ? ` "${d.message.slice(0, 50)}"` : ''}`).join(', ') : 'no body';
  };
  return (
    puts
      .slice(-4)
      .map((r) => `${now - r.receivedAt} ms ago {${devices(r)}}`)
      .join('; ') || 'none'
  );
}
