// A CONNECT tunnel through an HTTP proxy (RFC 9110, 9.3.6): on a 2xx the raw socket, for the caller's TLS. Every way it
// fails is a ProxyTunnelError naming the step; the credentials go in Proxy-Authorization only, never in an error.

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { http } from '../../util/node-http.js';
import type { ProxyEndpoint } from '../../config/proxy-url.js';

/** A status the proxy itself answered, with the schemes of its challenges. */
export interface ProxyAnswer {
  status: number;
  statusText: string;
  authenticate: readonly string[];
  proxyError?: string;
}

export type TunnelFailure =
  /** No TCP connection to the proxy (refused, unreachable, name not found). */
  | { step: 'connect'; code: string }
  /** The proxy answered CONNECT with something other than 2xx. */
  | ({ step: 'answer' } & ProxyAnswer)
  /** The proxy closed the connection before answering: CONNECT, or (request set) a plain http request it was to forward. */
  | { step: 'closed'; code: string; request?: string }
  /** No tunnel within the exchange's time (set by the caller, whose timer it is). */
  | { step: 'timeout'; ms: number };

export class ProxyTunnelError extends Error {
  readonly code: string;
  constructor(
    readonly proxy: string,
    readonly target: string,
    readonly failure: TunnelFailure,
  ) {
    super(describeFailure(proxy, target, failure));
    this.name = 'ProxyTunnelError';
    this.code = failure.step === 'answer' ? `PROXY_${failure.status}` : failure.step === 'timeout' ? 'ETIMEDOUT' : failure.code;
  }
}

/** Resolves with the socket of an open tunnel to host:port; rejects with ProxyTunnelError. `signal` destroys the tunnel in the making (the caller's timeout or shutdown). */
export function openTunnel(proxy: ProxyEndpoint, host: string, port: number, options: { signal?: AbortSignal; userAgent?: string } = {}): Promise<Socket> {
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) => {
    const { signal } = options;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const headers: Record<string, string> = { Host: authority };
    if (proxy.authorization) headers['Proxy-Authorization'] = proxy.authorization;
    if (options.userAgent) headers['User-Agent'] = options.userAgent;
    // agent: false: a tunnel is one connection of its own, never pooled.
    const request = http.request({ host: proxy.host, port: proxy.port, method: 'CONNECT', path: authority, headers, agent: false, setHost: false });
    let connected = false;
    let settled = false;
    const finish = (error: Error | undefined, socket?: Socket) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        request.destroy();
        reject(error);
      } else {
        resolve(socket!);
      }
    };
    const fail = (failure: TunnelFailure) => finish(new ProxyTunnelError(proxy.label, authority, failure));
    const onAbort = () => finish(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });

    request.on('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    request.on('connect', (res, socket, head) => {
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        // Bytes after the answer belong to the tunnel (the server speaks first in some protocols).
        if (head.length > 0) socket.unshift(head);
        finish(undefined, socket);
        return;
      }
      socket.destroy();
      fail(answerFailure(res));
    });
    // Node hands a non-2xx answer to CONNECT to 'response' when it has a body.
    request.on('response', (res) => {
      res.resume();
      fail(answerFailure(res));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'ECONNRESET';
      fail(connected ? { step: 'closed', code } : { step: 'connect', code });
    });
    request.end();
  });
}

function answerFailure(res: IncomingMessage) {
  const authenticate = challengeSchemes(res.headers['proxy-authenticate']);
  const squid = res.headers['x-squid-error'];
  const failure: TunnelFailure = { step: 'answer', status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', authenticate };
  if (typeof squid === 'string' && squid) failure.proxyError = squid.slice(0, 80);
  return failure;
}

/** The scheme names of Proxy-Authenticate challenges (Basic, Negotiate, NTLM): their parameters (realm, nonce) say nothing the operator needs. */
export function challengeSchemes(value: string | string[] | undefined) {
  const list = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return [...new Set(list.map((c) => c.trim().split(/\s+/)[0]!).filter(Boolean))];
}

export function describeFailure(proxy: string, target: string, failure: TunnelFailure) {
  switch (failure.step) {
    case 'connect':
      return `proxy ${proxy} is not reachable (${failure.code})`;
    case 'closed':
      return `proxy ${proxy} closed the connection before answering ${failure.request ?? `CONNECT ${target}`} (${failure.code})`;
    case 'timeout':
      return `proxy ${proxy} did not open a tunnel to ${target} within ${failure.ms} ms`;
    case 'answer':
      return `proxy ${proxy} answered CONNECT ${target} with ${answerText(failure)}`;
  }
}

/** A proxy's answer as the lines say it: its status, its text, and squid's error name. */
export function answerText(answer: ProxyAnswer) {
  return `${answer.status}${answer.statusText ? ` ${answer.statusText}` : ''}${answer.proxyError ? `, ${answer.proxyError}` : ''}`;
}

/** Why an aborted signal was aborted, as an error. */
export function abortReason(signal: AbortSignal) {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
