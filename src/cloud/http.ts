// One HTTP exchange over node:http and node:https: the part of an HTTP client
// that the cloud client needs (method, headers, a string body, one timeout
// for the whole exchange, an AbortSignal; no redirect followed, no retry,
// every status returned). It replaces got, which cost the agent about 3.5 MB
// of resident memory more, measured by the bench (docs/performance/journal.md).

import type { IncomingHttpHeaders } from 'node:http';
import { http, https } from '../util/node-http.js';

export interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange, from connecting to the last byte of the answer. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Answers longer than this are cut off as an error (default 16 MiB). */
  maxBodyBytes?: number;
}

export interface HttpResponse {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export class HttpTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

export class HttpAnswerError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HttpAnswerError';
  }
}

const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

export function httpRequest(request: HttpRequest): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = request;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const transport = request.url.protocol === 'https:' ? https : request.url.protocol === 'http:' ? http : undefined;
    if (transport === undefined) {
      reject(new HttpAnswerError('ERR_UNSUPPORTED_PROTOCOL', `unsupported protocol ${request.url.protocol}`));
      return;
    }
    const headers = { ...request.headers };
    if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
    const maxBody = request.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

    let settled = false;
    // Settle first, then tear the socket down: destroy() makes events of its own.
    const settle = (error: Error | undefined, response?: HttpResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        outgoing.destroy();
        reject(error);
      } else {
        resolve(response!);
      }
    };

    const outgoing = transport.request(request.url, { method: request.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBody) {
          settle(new HttpAnswerError('EBODYTOOLARGE', `the answer is longer than ${maxBody} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        settle(undefined, {
          status: res.statusCode ?? 0,
          statusMessage: res.statusMessage ?? '',
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
      res.on('error', (error) => settle(error));
      res.on('close', () => {
        if (!res.complete) settle(new HttpAnswerError('ECONNRESET', 'the connection closed before the answer was complete'));
      });
    });
    outgoing.on('error', (error) => settle(error));
    const timer = setTimeout(() => settle(new HttpTimeoutError(request.timeoutMs)), request.timeoutMs);
    const onAbort = (): void => settle(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.end(request.body);
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
