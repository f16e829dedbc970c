// One HTTP exchange over node:http and node:https: what the cloud client needs (a string body, one timeout for the
// whole exchange, an AbortSignal; no redirect or retry, every status returned, an unasked compression decoded), instead
// of got (3.5 MB more RSS). Through a proxy, https goes through a CONNECT tunnel and http in absolute form, as curl does.

import type { Agent, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect, type SecureContext } from 'node:tls';
import { http, https } from '../util/node-http.js';
import { decodeBody, HttpAnswerError } from './content-encoding.js';
import { abortReason, challengeSchemes, openTunnel, ProxyTunnelError } from './proxy/tunnel.js';
import type { ProxyEndpoint } from '../config/proxy-url.js';

interface HttpRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange, from connecting to the last byte of the answer. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Answers longer than this are cut off as an error (default 16 MiB). */
  maxBodyBytes?: number;
  /** The proxy to go through; NO_PROXY is the caller's to apply (proxy/route.ts). */
  proxy?: ProxyEndpoint;
  /** Whom https trusts (cloud/trust); Node's default roots when absent. */
  secureContext?: SecureContext;
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

const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;

/** A kept-alive socket the server had closed failed the request at once, before any answer. */
class StaleSocketError extends Error {}

/**
 * One exchange. A request that fails at once on a reused keep-alive socket (closed as it was picked up: common near a
 * load balancer's idle timeout) goes again once on a new connection, or the daemon would lose the report to that race.
 */
export async function httpRequest(request: HttpRequest) {
  const started = Date.now();
  try {
    return await exchange(request, false);
  } catch (error) {
    if (!(error instanceof StaleSocketError)) throw error;
    // A new connection is never a reused one: this one fails as it fails.
    return exchange({ ...request, timeoutMs: Math.max(1, request.timeoutMs - (Date.now() - started)) }, true);
  }
}

function exchange(request: HttpRequest, freshSocket: boolean) {
  return new Promise<HttpResponse>((resolve, reject) => {
    const { signal, url, proxy } = request;
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') {
      reject(new HttpAnswerError('ERR_UNSUPPORTED_PROTOCOL', `unsupported protocol ${url.protocol}`));
      return;
    }
    // No compressed answer is asked for; one that comes anyway is decoded (content-encoding.ts).
    const headers: Record<string, string> = { 'Accept-Encoding': 'identity', ...request.headers };
    if (request.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(request.body));
    const maxBody = request.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

    let settled = false;
    let outgoing: ReturnType<typeof http.request> | undefined;
    // Ends a tunnel still being opened when the exchange is over (timeout, abort).
    const tunnelling = new AbortController();
    // Settle first, then tear the socket down: destroy() makes events of its own.
    const settle = (error: Error | undefined, response?: HttpResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (error) {
        tunnelling.abort(error);
        outgoing?.destroy();
        reject(error);
      } else {
        resolve(response!);
      }
    };

    // The answer's head, once it has come.
    let head: IncomingMessage | undefined;
    const onResponse = (res: IncomingMessage) => {
      head = res;
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
        decodeBody(Buffer.concat(chunks), res.headers['content-encoding'], maxBody).then(
          (body) =>
            settle(undefined, {
              status: res.statusCode ?? 0,
              statusMessage: res.statusMessage ?? '',
              headers: res.headers,
              body: body.toString('utf8'),
            }),
          (error: Error) => settle(error),
        );
      });
      res.on('error', (error) => settle(error));
      res.on('close', () => {
        if (!res.complete) settle(new HttpAnswerError('ECONNRESET', 'the connection closed before the answer was complete'));
      });
    };

    const send = (start: () => ReturnType<typeof http.request>, mapError: (error: Error) => Error = (e) => e) => {
      outgoing = start();
      outgoing.on('error', (error) => settle(mapError(error)));
      outgoing.end(request.body);
    };

    let tunnelOpen = false;
    const timer = setTimeout(() => {
      const tunnelTimedOut = proxy !== undefined && secure && !tunnelOpen;
      settle(
        tunnelTimedOut
          ? new ProxyTunnelError(proxy.label, `${url.hostname}:${url.port || 443}`, { step: 'timeout', ms: request.timeoutMs })
          : new HttpTimeoutError(request.timeoutMs),
      );
    }, request.timeoutMs);
    const onAbort = () => settle(abortReason(signal!));
    signal?.addEventListener('abort', onAbort, { once: true });

    if (!proxy) {
      const options = {
        method: request.method,
        headers,
        agent: freshSocket ? false : directAgent(secure),
        // Explicit, so that NODE_TLS_REJECT_UNAUTHORIZED=0 in the environment cannot turn the check off.
        rejectUnauthorized: true,
        ...(request.secureContext && { secureContext: request.secureContext }),
      };
      send(
        () => (secure ? https : http).request(url, options, onResponse),
        (error: NodeJS.ErrnoException) =>
          !head && outgoing?.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE') ? new StaleSocketError(error.message) : error,
      );
    } else if (!secure) {
      let reached = false;
      send(
        () => {
          const req = viaProxy(proxy, url, request.method, headers, onResponse);
          req.once('socket', (socket) => {
            if (!socket.connecting) reached = true;
            else socket.once('connect', () => (reached = true));
          });
          return req;
        },
        // A connection that never reached the proxy, or that the proxy cut before any answer, fails naming the proxy.
        (error: NodeJS.ErrnoException) =>
          !reached
            ? new ProxyTunnelError(proxy.label, url.host, { step: 'connect', code: error.code ?? 'ECONNREFUSED' })
            : cutByProxy(proxy, url, request.method, head, error),
      );
    } else {
      const host = url.hostname.replace(/^\[|\]$/g, '');
      const port = url.port ? Number(url.port) : 443;
      openTunnel(proxy, host, port, { signal: tunnelling.signal, userAgent: headers['User-Agent'] }).then(
        (socket) => {
          if (settled) {
            socket.destroy();
            return;
          }
          tunnelOpen = true;
          const tls = tlsOver(socket, host, request.secureContext);
          send(() => https.request(url, { method: request.method, headers, createConnection: () => tls }, onResponse));
        },
        (error: Error) => settle(error),
      );
    }
  });
}

/** TLS with the cloud over an open tunnel, checked against the cloud's name as a direct connection would be. */
function tlsOver(socket: Socket, host: string, secureContext: SecureContext | undefined) {
  return tlsConnect({
    socket,
    host,
    // SNI carries names only, never an address literal.
    ...(isIP(host) ? {} : { servername: host }),
    secureContext,
    rejectUnauthorized: true,
  });
}

/**
 * A plain http request through the proxy that failed after reaching it: a cut before any answer, or during an answer
 * without Via (RFC 9110 7.6.3: the proxy's own, as tinyproxy's 401 reset), is the proxy's doing; a forwarded answer cut
 * short stays the error it is.
 */
function cutByProxy(proxy: ProxyEndpoint, url: URL, method: string, head: IncomingMessage | undefined, error: NodeJS.ErrnoException) {
  if (head === undefined)
    return new ProxyTunnelError(proxy.label, url.host, { step: 'closed', code: error.code ?? 'ECONNRESET', request: `${method} ${url.origin}` });
  if (head.headers.via !== undefined) return error;
  const authenticate = challengeSchemes(head.headers['proxy-authenticate'] ?? head.headers['www-authenticate']);
  return new ProxyTunnelError(proxy.label, url.host, { step: 'answer', status: head.statusCode ?? 0, statusText: head.statusMessage ?? '', authenticate });
}

/** An http URL through the proxy: the request in absolute form, with the proxy's credentials. */
function viaProxy(proxy: ProxyEndpoint, url: URL, method: string, headers: Record<string, string>, onResponse: (res: IncomingMessage) => void) {
  const all: Record<string, string> = { ...headers, Host: url.host };
  if (proxy.authorization) all['Proxy-Authorization'] = proxy.authorization;
  return http.request({ host: proxy.host, port: proxy.port, method, path: url.href, headers: all, agent: false, setHost: false }, onResponse);
}

// Agents of our own: with NODE_USE_ENV_PROXY=1 the global ones follow Node's NO_PROXY rules, not curl's.
let agents: { http: Agent; https: Agent } | undefined;
function directAgent(secure: boolean) {
  agents ??= { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
  return secure ? agents.https : agents.http;
}
