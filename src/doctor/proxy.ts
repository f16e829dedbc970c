// The doctor's look at the way to the cloud: the route a request takes, the CAs trusted, and, through a proxy, a
// CONNECT to the cloud and a TLS handshake over it, which shows who issued the certificate the host sees (a
// TLS-inspecting proxy's CA) even when it is not trusted. The handshake accepts any certificate to read it and then
// closes: nothing is sent.

import { once } from 'node:events';
import { connect as tlsConnect } from 'node:tls';
import { isIP } from 'node:net';
import type { CloudNetwork } from '../cloud/network.js';
import type { ProxyContext } from '../cloud/proxy/explain.js';
import { routeFor } from '../cloud/proxy/route.js';
import { openTunnel, ProxyTunnelError } from '../cloud/proxy/tunnel.js';
import { named } from './checklist.js';
import { routeItems, trustItem, tunnelItems, type TunnelObservation } from './proxy-findings.js';

export async function checkNetwork(baseUrl: string, network: CloudNetwork, env: NodeJS.ProcessEnv, timeoutMs: number) {
  const url = URL.parse(baseUrl);
  if (!url) return [];
  const secure = url.protocol === 'https:';
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  const route = routeFor(network.proxies, url);
  const items = named('proxy', routeItems(`${url.hostname}:${port}`, route, network.proxies, env));
  if (secure) items.push(...named('tls', [trustItem(network.trust.sources)]));
  if (route.kind !== 'proxy' || !secure) return items;
  const context = { proxy: route.proxy, setting: route.setting, target: `${url.hostname}:${port}` };
  const seen = await observeTunnel(context, url.hostname.replace(/^\[|\]$/g, ''), port, network, timeoutMs);
  return [...items, ...named('proxy.tunnel', tunnelItems(context, seen))];
}

async function observeTunnel(context: ProxyContext, host: string, port: number, network: CloudNetwork, timeoutMs: number): Promise<TunnelObservation> {
  const started = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  let socket;
  try {
    socket = await openTunnel(context.proxy, host, port, { signal, userAgent: 'device-agent doctor' });
  } catch (error) {
    if (error instanceof ProxyTunnelError) return { kind: 'failed', failure: error.failure };
    return { kind: 'failed', failure: { step: 'timeout', ms: timeoutMs } };
  }
  const ms = Date.now() - started;
  const secureContext = network.trust.secureContext;
  const tls = tlsConnect({
    socket,
    host,
    ...(isIP(host) ? {} : { servername: host }),
    ...(secureContext && { secureContext }),
    // Only to read the certificate and the verdict; the socket closes right after.
    rejectUnauthorized: false,
  });
  try {
    // The tunnel's deadline holds for the handshake too.
    await once(tls, 'secureConnect', { signal });
    const cert = tls.getPeerCertificate();
    return {
      kind: 'open',
      ms,
      issuer: distinguishedName(cert.issuer),
      subject: distinguishedName(cert.subject),
      trusted: tls.authorized,
      // Node keeps the verification error's code here as a string, whatever the typings say.
      ...(tls.authorizationError && { authorizationError: String(tls.authorizationError) }),
    };
  } catch (error) {
    return { kind: 'tls-failed', ms, code: signal.aborted ? 'ETIMEDOUT' : ((error as NodeJS.ErrnoException).code ?? (error as Error).message) };
  } finally {
    tls.destroy();
  }
}

function distinguishedName(name: { [key: string]: string | string[] | undefined } | undefined) {
  if (!name) return 'unknown';
  const parts = Object.entries(name).flatMap(([k, v]) => (v === undefined ? [] : [`${k}=${Array.isArray(v) ? v.join('+') : v}`]));
  return parts.length ? parts.join(', ') : 'unknown';
}
