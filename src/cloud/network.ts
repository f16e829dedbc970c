// How the cloud is reached, from the settings: the proxies with NO_PROXY, and whom https trusts. Built once per
// command; the proxy credentials are registered with the log masker before anything can log them.

import type { Settings } from '../config/schema.js';
import { addSecret } from '../log/redact.js';
import { planProxies, proxySecrets } from './proxy/route.js';
import { loadTrust } from './trust/trust.js';

export type CloudNetwork = ReturnType<typeof cloudNetwork>;

type NetworkSettings = Pick<Settings, 'httpsProxy' | 'httpProxy' | 'noProxy' | 'caFile' | 'systemCa'>;

/** Throws ConfigError when caFile cannot be used. */
export function cloudNetwork(settings: NetworkSettings, env: NodeJS.ProcessEnv = process.env) {
  const proxies = maskProxyCredentials(settings);
  return { proxies, trust: loadTrust(settings, env) };
}

/** Parses the proxy settings and masks their passwords in every log line from now on. */
export function maskProxyCredentials(settings: NetworkSettings) {
  const proxies = planProxies(settings);
  for (const secret of proxySecrets(proxies)) addSecret(secret);
  return proxies;
}
