// HTTP client of the cloud's v1 interface: PUT /devices (the report), and the reads the doctor command needs. One
// attempt per call (http.ts): resending is the daemon's, its planner's one backoff across reports, and `once` makes one.
// Statuses are classified here into the typed errors of errors.ts.

import { pathSegment } from './path-segment.js';
import type { Logger } from '../log/logger.js';
import { silentLogger } from '../log/logger.js';
import { addSecret, maskString } from '../log/redact.js';
import { classifyStatus, parseJsonObject, parseReportAnswer } from './answer.js';
import type { SecureContext } from 'node:tls';
import { CloudAuthError, CloudError, CloudProtocolError, CloudProxyError, CloudRejectedError, CloudUnavailableError } from './errors.js';
import { gatewayOf, gatewayReason } from './gateway.js';
import { httpRequest, type HttpResponse } from './http.js';
import { explainStatus, explainTunnelFailure, explainUntrusted, type ProxyContext } from './proxy/explain.js';
import { routeFor, type ProxyPlan } from './proxy/route.js';
import { abortReason, challengeSchemes, ProxyTunnelError } from './proxy/tunnel.js';
import { parseRetryAfter } from './retry.js';
import type { BookingStatus, ReportBody } from './types.js';
import { limited } from '../log/limited.js';
import { systemClock } from '../util/clock.js';

export interface CloudClientOptions {
  /** The v1 root, e.g. https://cloud.example.com/v1 */
  baseUrl: string;
  /** Username or email of the account. */
  username: string;
  apiKey: string;
  /** Timeout of one HTTP attempt (default 30 s). */
  requestTimeoutMs?: number;
  /** The shortest timeout an attempt gets when the report deadline is closer (default 5 s). */
  minAttemptMs?: number;
  userAgent?: string;
  logger?: Logger;
  /** Proxies and NO_PROXY, parsed (proxy/route.ts); none: every request goes direct. */
  proxies?: ProxyPlan;
  /** Whom https trusts (trust/trust.ts); Node's default roots when absent. */
  secureContext?: SecureContext;
}

export interface PutOptions {
  signal?: AbortSignal;
  /** Epoch ms by which the attempt ends (the next scheduled report), a few seconds granted at least. */
  deadline?: number;
}

export type CredentialCheck = Awaited<ReturnType<CloudClient['checkCredentials']>>;

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MIN_ATTEMPT_MS = 5_000;

export class CloudClient {
  private authorization: string | undefined;

  constructor(private readonly options: CloudClientOptions) {}

  /** The cloud's host (and port), as the lines that name it say it. */
  get host() {
    return URL.parse(this.options.baseUrl)?.host ?? this.options.baseUrl;
  }

  /**
   * Reports the inventory; resolves with the cloud's answer once delivered. Throws CloudAuthError, CloudRejectedError
   * (not worth resending unchanged), CloudProtocolError or CloudUnavailableError (resend at the next report).
   */
  async putDevices(body: ReportBody, opts: PutOptions = {}) {
    const operation = 'PUT /devices';
    const res = await this.attempt(operation, 'PUT', '/devices', { ...opts, body: JSON.stringify(body) });
    const parsed = parseReportAnswer(res.body);
    if (!parsed.ok) throw new CloudProtocolError(operation, res.status, res.contentType, res.body, parsed.problem);
    if (parsed.dropped > 0) {
      limited(this.logger).warn(
        'cloud-entries-without-udid',
        { operation, dropped: parsed.dropped },
        'the cloud listed failedDevices entries without a udid; they were ignored',
      );
    }
    this.logger.debug({ operation, devices: body.devices.length, failed: parsed.answer.failedDevices.length }, 'report delivered');
    return parsed.answer;
  }

  /** GET /devices/{id}/status; undefined on 404. An id that cannot be a path segment rejects, as any other failure. */
  async getDeviceStatus(deviceId: string | number, opts: PutOptions = {}) {
    const operation = 'GET /devices/{id}/status';
    const res = await this.attempt(operation, 'GET', `/devices/${pathSegment(String(deviceId))}/status`, { ...opts, allow404: true });
    if (res.status === 404) return undefined;
    const parsed = parseJsonObject(res.body);
    if (!parsed.ok) throw new CloudProtocolError(operation, res.status, res.contentType, res.body, parsed.problem);
    return parsed.value as unknown as BookingStatus;
  }

  /** One GET /devices for the doctor: resolves with the cloud's clock when the credentials are accepted. */
  async checkCredentials() {
    const operation = 'GET /devices';
    const started = systemClock.wall();
    const res = await this.attempt(operation, 'GET', '/devices', {});
    const ended = systemClock.wall();
    const parsed = parseJsonObject(res.body);
    if (!parsed.ok) throw new CloudProtocolError(operation, res.status, res.contentType, res.body, parsed.problem);
    const date = Date.parse(res.headers.date ?? '');
    const serverDate = Number.isNaN(date) ? undefined : date;
    const list = parsed.value.privateDevices;
    // Status 200 when the credentials work; the cloud's Date header as epoch ms; the skew: serverDate minus the local
    // clock at the middle of the request (HTTP dates have 1 s resolution); the private devices the account sees.
    return {
      status: res.status,
      serverDate,
      clockSkewMs: serverDate === undefined ? undefined : serverDate - Math.round((started + ended) / 2),
      roundTripMs: ended - started,
      privateDevices: Array.isArray(list) ? list.length : undefined,
    };
  }

  private get logger() {
    return this.options.logger ?? silentLogger();
  }

  // Built on first use; registering both forms makes the logger mask them wherever they appear.
  private authHeader() {
    if (this.authorization === undefined) {
      const credential = Buffer.from(`${this.options.username}:${this.options.apiKey}`).toString('base64');
      addSecret(this.options.apiKey);
      addSecret(credential);
      this.authorization = `Basic ${credential}`;
    }
    return this.authorization;
  }

  // An attempt in flight must not hold the report past the next scheduled one; it still gets a few seconds.
  private attemptTimeout(deadline: number | undefined) {
    const configured = this.options.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (deadline === undefined) return configured;
    const floor = Math.min(configured, this.options.minAttemptMs ?? DEFAULT_MIN_ATTEMPT_MS);
    return Math.min(configured, Math.max(floor, deadline - systemClock.wall()));
  }

  /** One HTTP exchange; non-success statuses become typed errors. */
  private async attempt(
    operation: string,
    method: 'GET' | 'PUT',
    path: string,
    opts: { body?: string; signal?: AbortSignal; allow404?: boolean; deadline?: number },
  ) {
    const timeoutMs = this.attemptTimeout(opts.deadline);
    const headers: Record<string, string> = {
      Authorization: this.authHeader(),
      Accept: 'application/json',
      'User-Agent': this.options.userAgent ?? 'device-agent',
    };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    const url = URL.parse(this.options.baseUrl.replace(/\/+$/, '') + path);
    if (!url) throw new CloudError(operation, `${operation}: DEVICE_AGENT_BASE_URL is not a valid URL`);
    const route = this.options.proxies ? routeFor(this.options.proxies, url) : undefined;
    // The proxy's way, as its messages name it.
    const context = route?.kind === 'proxy' ? route : undefined;
    let res: HttpResponse;
    try {
      res = await httpRequest({
        method,
        url,
        headers,
        body: opts.body,
        timeoutMs,
        signal: opts.signal,
        proxy: context?.proxy,
        secureContext: this.options.secureContext,
      });
    } catch (error) {
      throw translateRequestError(operation, error, timeoutMs, opts.signal, context);
    }
    // Plain http goes to the proxy, which answers 407, or 401 (tinyproxy), for its own credentials: a 401 without Via
    // (RFC 9110, 7.6.3) is the proxy's, not the cloud refusing the API key.
    if (context && (res.status === 407 || (res.status === 401 && url.protocol === 'http:' && res.headers.via === undefined))) {
      const challenges = challengeSchemes(res.headers['proxy-authenticate']);
      const fromProxy = res.status === 407 ? challenges : challengeSchemes(res.headers['www-authenticate']);
      throw new CloudProxyError(
        operation,
        context.proxy.label,
        explainStatus(context, { status: res.status, statusText: res.statusMessage, authenticate: fromProxy }),
        { status: res.status },
      );
    }
    const answer = { ...res, contentType: String(res.headers['content-type'] ?? '') };
    if (answer.status === 404 && opts.allow404) return answer;
    switch (classifyStatus(answer.status)) {
      case 'success':
        return answer;
      case 'redirect': {
        const location = safeLocation(res.headers.location);
        throw new CloudProtocolError(operation, answer.status, answer.contentType, answer.body, `redirected${location ? ` to ${location}` : ''}`);
      }
      case 'auth':
        throw new CloudAuthError(operation, answer.status);
      case 'transient': {
        const { status, statusMessage } = answer;
        const retryAfterMs = parseRetryAfter(firstHeader(res.headers['retry-after']), systemClock.wall());
        const gateway = gatewayOf(status, firstHeader(res.headers.server), answer.body);
        throw new CloudUnavailableError(
          operation,
          gateway === undefined ? `HTTP ${status}${statusMessage ? ` ${statusMessage}` : ''}` : gatewayReason(status, statusMessage, gateway),
          { status, retryAfterMs, way: gateway && `HTTP ${status} from a gateway` },
        );
      }
      case 'rejected':
        throw new CloudRejectedError(operation, answer.status, answer.body);
    }
  }
}

/**
 * Whatever the request threw as a CloudUnavailableError with only the error code and a masked first line: HTTP stack
 * errors are never rethrown, so nothing of the request (its Authorization header) can reach a log.
 */
function translateRequestError(operation: string, error: unknown, timeoutMs: number, signal: AbortSignal | undefined, proxy?: ProxyContext) {
  if (signal?.aborted) return abortReason(signal);
  if (error instanceof ProxyTunnelError && proxy) {
    const status = error.failure.step === 'answer' ? error.failure.status : undefined;
    return new CloudProxyError(operation, proxy.proxy.label, explainTunnelFailure(proxy, error.failure), { code: error.code, status });
  }
  const e = error as { code?: unknown; name?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  if (e.name === 'TimeoutError') {
    return new CloudUnavailableError(operation, `no answer within ${timeoutMs} ms`, { code: code ?? 'ETIMEDOUT', way: 'timeout' });
  }
  if (code?.startsWith('HPE_') && code !== 'HPE_HEADER_OVERFLOW') {
    // Node's parser found no HTTP (a wrong port, TLS behind http://): a retry cannot help.
    return new CloudUnavailableError(operation, `the server does not answer HTTP: ${notHttp(error)}`, { code, retryable: false, way: 'not HTTP' });
  }
  const firstLine = typeof e.message === 'string' ? (e.message.split('\n')[0] ?? '') : '';
  // Without the user info of any URL in it.
  const message = maskString(firstLine.replace(/\/\/[^/\s@]+@/g, '//')).slice(0, 200);
  const ssl = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1];
  const tls = ssl !== undefined || (code !== undefined && /CERT|SSL|TLS|SELF_SIGNED|VERIFY|ERR_OSSL|EPROTO/.test(code));
  if (tls && proxy && code !== undefined && /CERT|SELF_SIGNED|VERIFY/.test(code) && !/EXPIRED|NOT_YET_VALID/.test(code)) {
    return new CloudProxyError(operation, proxy.proxy.label, explainUntrusted(proxy, code), { code });
  }
  let reason: string;
  if (tls) {
    reason =
      `TLS problem (${code ?? 'TLS'}: ${ssl ?? message}); check the http/https scheme of DEVICE_AGENT_BASE_URL, ` +
      `and for a private CA caFile (DEVICE_AGENT_CA_FILE) or the system CA store${proxy ? `, and proxy ${proxy.proxy.label}` : ''}`;
  } else if (code && message.includes(code)) {
    reason = message;
  } else {
    reason = [code, message].filter(Boolean).join(': ') || 'network error';
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason += '; check the host name in DEVICE_AGENT_BASE_URL and DNS';
  return new CloudUnavailableError(operation, reason, { code, retryable: !tls, way: `${tls ? 'TLS' : 'network'} ${code ?? ssl ?? 'error'}` });
}

/** What answered instead of HTTP, from the bytes Node's parser kept. */
function notHttp(error: unknown) {
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.alloc(0);
  // A TLS record: content type 20-23 (alert, handshake, ...), version 3.x.
  if (bytes.length >= 2 && bytes[0]! >= 0x14 && bytes[0]! <= 0x17 && bytes[1] === 0x03) {
    return 'it answered with TLS; DEVICE_AGENT_BASE_URL probably needs https://';
  }
  const sample = JSON.stringify(bytes.subarray(0, 48).toString('latin1')).slice(1, -1);
  return `it sent "${sample}"; check the host and port of DEVICE_AGENT_BASE_URL`;
}

function safeLocation(location: string | undefined) {
  const url = location ? URL.parse(location, 'http://relative.invalid') : null;
  if (!url) return undefined;
  return url.host === 'relative.invalid' ? url.pathname : `${url.protocol}//${url.host}${url.pathname}`;
}

function firstHeader(value: string | string[] | undefined) {
  return Array.isArray(value) ? value[0] : value;
}
