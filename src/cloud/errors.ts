// The few ways talking to the cloud can fail, each with a message saying what to do. None keeps the request or its
// credentials: transport errors are never rethrown or kept as `cause`; only safe fields are copied.

import { maskString } from '../log/redact.js';
import type { ProxyExplanation, ProxyProblem } from './proxy/explain.js';

/** Base class: `instanceof CloudError` catches every failure of the cloud client. */
export class CloudError extends Error {
  constructor(
    /** e.g. "PUT /devices" */
    readonly operation: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 401 or 403: the credentials are wrong or lack permission. Never retried. */
export class CloudAuthError extends CloudError {
  constructor(
    operation: string,
    readonly status: number,
  ) {
    const what = status === 403 ? 'refused the request (403 Forbidden)' : 'rejected the credentials (401 Unauthorized)';
    super(
      operation,
      `${operation}: the cloud ${what}. Check DEVICE_AGENT_USERNAME (username or email) and the API key ` +
        '(DEVICE_AGENT_API_KEY, DEVICE_AGENT_API_KEY_FILE or the api-key systemd credential; it is in the API keys settings of the account)' +
        `${status === 403 ? ', and that the account may report devices' : ''}.`,
    );
  }
}

/** The advice of a 404: the paths of the API hang off the v1 root, so a base URL without it finds none. */
const WRONG_ROOT_HINT = 'a 404 here usually means DEVICE_AGENT_BASE_URL is not the v1 root of the cloud (e.g. https://cloud.example.com/v1)';

/** Any other 4xx: the cloud refused this request as such; sending it again unchanged will not help. */
export class CloudRejectedError extends CloudError {
  /** A short, secret-masked start of the answer body. */
  readonly bodyExcerpt: string;

  constructor(
    operation: string,
    readonly status: number,
    body: string,
  ) {
    const excerpt = safeExcerpt(body);
    const hint = status === 404 ? `. ${WRONG_ROOT_HINT}` : '';
    super(operation, `${operation}: the cloud rejected the request with ${status}${excerpt ? `: ${excerpt}` : ''}${hint}`);
    this.bodyExcerpt = excerpt;
  }
}

interface UnavailableDetails {
  /** HTTP status when the cloud answered (408, 429, 5xx). */
  status?: number;
  /** Node's error code when it did not (ECONNRESET, ETIMEDOUT, ...). */
  code?: string;
  /** Delay the cloud asked for with Retry-After, in ms. */
  retryAfterMs?: number;
  /** False for failures a quick retry cannot fix (TLS certificate problems). */
  retryable?: boolean;
  /** How it failed, in words that stay the same while it fails alike ("HTTP 502 from a gateway", "timeout"). */
  way?: string;
}

/** Network error, timeout, 408, 429 or 5xx: not delivered; the daemon resends, once exits 1. */
export class CloudUnavailableError extends CloudError {
  readonly status: number | undefined;
  readonly code: string | undefined;
  readonly retryAfterMs: number | undefined;
  readonly retryable: boolean;
  /** What happened, without the operation and advice (for retry logs). */
  readonly reason: string;
  /** How it failed, stable across attempts that fail alike (UnavailableDetails.way). */
  readonly way: string;

  constructor(operation: string, reason: string, details: UnavailableDetails = {}) {
    const safeReason = maskString(reason);
    super(operation, `${operation}: the cloud is unavailable (${safeReason})`);
    this.reason = safeReason;
    this.status = details.status;
    this.code = details.code;
    this.retryAfterMs = details.retryAfterMs;
    this.retryable = details.retryable ?? true;
    this.way = details.way ?? (details.status !== undefined ? `HTTP ${details.status}` : `network ${details.code ?? 'error'}`);
  }
}

/**
 * The report did not get through the proxy (unreachable, tunnel or credentials refused, no way to the cloud, or an
 * untrusted certificate from TLS inspection). Names the proxy as http://host:port, never its credentials, and what to do.
 */
export class CloudProxyError extends CloudUnavailableError {
  readonly problem: ProxyProblem;
  readonly advice: string;

  constructor(
    operation: string,
    /** http://host:port of the proxy. */
    readonly proxy: string,
    explanation: ProxyExplanation,
    details: UnavailableDetails = {},
  ) {
    super(operation, explanation.reason, {
      ...details,
      retryable: explanation.retryable,
      way: `proxy ${explanation.problem} ${details.status ?? details.code ?? ''}`.trim(),
    });
    this.problem = explanation.problem;
    this.advice = maskString(explanation.advice);
    this.message = `${operation}: ${this.reason}: ${this.advice}; the report is sent again later`;
  }
}

/** A success status whose body is not the expected JSON (HTML, garbage, a redirect): not delivered. */
export class CloudProtocolError extends CloudError {
  readonly bodyExcerpt: string;

  constructor(
    operation: string,
    readonly status: number,
    readonly contentType: string,
    body: string,
    problem: string,
  ) {
    const excerpt = safeExcerpt(body);
    super(
      operation,
      `${operation}: unexpected answer (${problem}; status ${status}, content-type "${contentType || 'none'}"` +
        `${excerpt ? `, body starts with: ${excerpt}` : ''}). ` +
        'Check DEVICE_AGENT_BASE_URL (it must point at the v1 root) and any proxy or captive portal between the agent and the cloud.',
    );
    this.bodyExcerpt = excerpt;
  }
}

const EXCERPT_CHARS = 160;

/** First characters of a body, whitespace collapsed and secrets masked; a body that is not text is only counted. */
function safeExcerpt(body: string) {
  // Compressed or binary bytes say nothing to a person and can upset a terminal; a stray one in text does not count.
  if ((body.slice(0, EXCERPT_CHARS).match(/[\u0000-\u0008\u000e-\u001f\u007f\ufffd]/g)?.length ?? 0) >= 3) {
    return `(${Buffer.byteLength(body)} bytes that are not text: compressed or binary)`;
  }
  const flat = body.replace(/\s+/g, ' ').trim();
  const cut = flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
  return maskString(cut);
}
