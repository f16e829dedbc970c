// Which way a request to the cloud goes: through the proxy of its scheme
// (httpsProxy for https://, httpProxy for http://) unless NO_PROXY names the
// host. The settings already carry the environment's HTTPS_PROXY, HTTP_PROXY
// and NO_PROXY as their defaults (config/schema.ts). Pure: no I/O.

import { formatEntry, noProxyMatch, parseNoProxy, type NoProxyList } from './no-proxy.js';
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
  | { kind: 'proxy'; proxy: ProxyEndpoint; setting: string }
  | { kind: 'direct'; why: 'no-proxy-set'; setting: string }
  | { kind: 'direct'; why: 'no-proxy-entry'; entry: string };

/** The setting names as operators know them, for messages. */
export const SETTING_NAMES = {
  https: 'httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY)',
  http: 'httpProxy (DEVICE_AGENT_HTTP_PROXY, else the http-proxy credential, http_proxy or HTTP_PROXY)',
  noProxy: 'noProxy (DEVICE_AGENT_NO_PROXY, else no_proxy or NO_PROXY)',
} as const;

/** Throws on an unusable proxy URL; config validation has caught those before. */
export function planProxies(settings: ProxySettings): ProxyPlan {
  const plan: ProxyPlan = { noProxy: parseNoProxy(settings.noProxy) };
  const https = endpoint(settings.httpsProxy, SETTING_NAMES.https);
  const http = endpoint(settings.httpProxy, SETTING_NAMES.http);
  if (https) plan.https = https;
  if (http) plan.http = http;
  return plan;
}

export function routeFor(plan: ProxyPlan, url: URL): Route {
  const secure = url.protocol === 'https:';
  const proxy = secure ? plan.https : plan.http;
  const setting = secure ? SETTING_NAMES.https : SETTING_NAMES.http;
  if (!proxy) return { kind: 'direct', why: 'no-proxy-set', setting };
  const port = url.port ? Number(url.port) : secure ? 443 : 80;
  const entry = noProxyMatch(plan.noProxy, url.hostname, port);
  if (entry) return { kind: 'direct', why: 'no-proxy-entry', entry: formatEntry(entry) };
  return { kind: 'proxy', proxy, setting };
}

/** Every password and credential the settings carry, for the log masker. */
export function proxySecrets(plan: ProxyPlan): string[] {
  return [...(plan.https?.secrets ?? []), ...(plan.http?.secrets ?? [])];
}

function endpoint(value: string | undefined, setting: string): ProxyEndpoint | undefined {
  const parsed = parseProxyUrl(value);
  if (isProblem(parsed)) throw new Error(`${setting} ${parsed.problem}`);
  return parsed;
}
