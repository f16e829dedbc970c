// Which way a request to the cloud goes: through its scheme's proxy (httpsProxy, httpProxy) unless NO_PROXY names the
// host; the settings carry the environment's variables as defaults. Pure. Plain http to loopback never goes through a
// proxy (as Go's net/http): plain http is allowed there only because it stays on the host, and a host-wide http_proxy
// must not carry the API key across in clear.

import { formatEntry, noProxyMatch, parseNoProxy, type NoProxyList } from './no-proxy.js';
import { isLoopbackHost } from '../../config/plain-http.js';
import { isProblem, parseProxyUrl, type ProxyEndpoint } from '../../config/proxy-url.js';

export interface ProxySettings {
  httpsProxy?: string;
  httpProxy?: string;
  noProxy?: string;
}

/** The proxy settings, parsed once. */
export interface ProxyPlan {
  https?: ProxyEndpoint;
  http?: ProxyEndpoint;
  noProxy: NoProxyList;
}

export type Route =
  /** `target`: host:port of the cloud, as the proxy's messages name it. */
  | { kind: 'proxy'; proxy: ProxyEndpoint; setting: string; target: string }
  | { kind: 'direct'; why: 'no-proxy-set'; setting: string }
  | { kind: 'direct'; why: 'no-proxy-entry'; entry: string }
  /** Plain http to loopback: the proxy set for it is passed by, so the key never crosses it in clear. */
  | { kind: 'direct'; why: 'loopback-plain-http'; proxy: ProxyEndpoint; setting: string };

/** The setting names as operators know them, for messages. */
const SETTING_NAMES = {
  https: 'httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY)',
  http: 'httpProxy (DEVICE_AGENT_HTTP_PROXY, else the http-proxy credential, http_proxy or HTTP_PROXY)',
  noProxy: 'noProxy (DEVICE_AGENT_NO_PROXY, else no_proxy or NO_PROXY)',
} as const;

/** Throws on an unusable proxy URL; config validation has caught those before. */
export function planProxies(settings: ProxySettings): ProxyPlan {
  const https = endpoint(settings.httpsProxy, SETTING_NAMES.https);
  const http = endpoint(settings.httpProxy, SETTING_NAMES.http);
  return { noProxy: parseNoProxy(settings.noProxy), ...(https && { https }), ...(http && { http }) };
}

export function routeFor(plan: ProxyPlan, url: URL): Route {
  const secure = url.protocol === 'https:';
  const proxy = secure ? plan.https : plan.http;
  const setting = secure ? SETTING_NAMES.https : SETTING_NAMES.http;
  if (!proxy) return { kind: 'direct', why: 'no-proxy-set', setting };
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  const entry = noProxyMatch(plan.noProxy, url.hostname, port);
  if (entry) return { kind: 'direct', why: 'no-proxy-entry', entry: formatEntry(entry) };
  if (!secure && isLoopbackHost(url.hostname)) return { kind: 'direct', why: 'loopback-plain-http', proxy, setting };
  return { kind: 'proxy', proxy, setting, target: `${url.hostname}:${port}` };
}

/** Every password and credential the settings carry, for the log masker. */
export function proxySecrets(plan: ProxyPlan) {
  return [...(plan.https?.secrets ?? []), ...(plan.http?.secrets ?? [])];
}

function endpoint(value: string | undefined, setting: string) {
  const parsed = parseProxyUrl(value);
  if (isProblem(parsed)) throw new Error(`${setting} ${parsed.problem}`);
  return parsed;
}

/** Why a loopback http request passes the proxy by, for the start line and doctor. */
export const LOOPBACK_DIRECT = 'plain http to loopback never goes through a proxy, where the API key would cross it unencrypted';
