// What the doctor says about the way to the cloud: which proxy a request takes (or why none), whom https trusts, and
// what the tunnel through the proxy showed. Pure: the observations come from proxy.ts.

import { explainTunnelFailure, type ProxyContext } from '../cloud/proxy/explain.js';
import { LOOPBACK_DIRECT, type ProxyPlan, type Route } from '../cloud/proxy/route.js';
import type { TunnelFailure } from '../cloud/proxy/tunnel.js';
import type { TrustSource } from '../cloud/trust/trust.js';
import type { CheckResult } from './checklist.js';
import { whereOn } from './where.js';

/** What a CONNECT and a TLS handshake through the proxy showed (nothing is sent in the tunnel). */
export type TunnelObservation =
  | { kind: 'failed'; failure: TunnelFailure }
  | { kind: 'tls-failed'; ms: number; code: string }
  | { kind: 'open'; ms: number; issuer: string; subject: string; trusted: boolean; authorizationError?: string };

export function routeItems(host: string, route: Route, plan: ProxyPlan, env: NodeJS.ProcessEnv): CheckResult[] {
  const account = route.kind === 'proxy' && route.proxy.username !== undefined ? `, as proxy user ${route.proxy.username}` : ', without proxy credentials';
  const finding =
    route.kind === 'proxy'
      ? `requests to ${host} go through ${route.proxy.label} (${route.setting})${account}`
      : route.why === 'no-proxy-entry'
        ? `requests to ${host} go direct: noProxy entry "${route.entry}" names it (noProxy, else NO_PROXY)`
        : route.why === 'loopback-plain-http'
          ? `requests to ${host} go direct, not through ${route.proxy.label} (${route.setting}): ${LOOPBACK_DIRECT}`
          : `none set for ${host} (${route.setting}); requests go direct`;
  const items: CheckResult[] = [{ status: 'ok', finding: `proxy: ${finding}` }];
  if (plan.noProxy.ignored.length > 0) {
    items.push({
      status: 'warn',
      finding: `proxy: noProxy entries that never match anything: ${plan.noProxy.ignored.join(', ')}`,
      advice: 'write host names (example.com covers its subdomains), IP addresses, CIDR blocks (10.0.0.0/8), host:port or *',
    });
  }
  if (env.NODE_USE_ENV_PROXY) {
    items.push({
      status: 'warn',
      finding:
        'NODE_USE_ENV_PROXY is set: Node then loads its fetch stack at start (3 MB more RSS in the daemon) for nothing, the agent reads the proxy settings itself',
      advice: 'remove NODE_USE_ENV_PROXY (and --use-env-proxy) from the environment of the agent',
    });
  }
  return items;
}

export function trustItem(sources: readonly TrustSource[]): CheckResult {
  const parts = sources.map((source) => {
    switch (source.kind) {
      case 'default':
        return `Node's roots (${source.count}, NODE_EXTRA_CA_CERTS included)`;
      case 'system':
        return `the system bundle ${source.path} (${source.count})`;
      case 'system-missing':
        return 'no system bundle (systemCa on, none of its places exists)';
      case 'file':
        return `caFile ${source.path} (${source.subjects.join('; ')})`;
    }
  });
  return { status: 'ok', finding: `TLS trust: ${parts.join(', ')}` };
}

export function tunnelItems(context: ProxyContext, seen: TunnelObservation): CheckResult[] {
  const { proxy, target } = context;
  const host = target.replace(/:\d+$/, '');
  if (seen.kind === 'failed') {
    const why = explainTunnelFailure(context, seen.failure);
    return [{ status: 'fail', finding: `proxy tunnel: ${why.reason}`, advice: why.advice }];
  }
  const opened: CheckResult = { status: 'ok', finding: `proxy tunnel: ${proxy.label} opened CONNECT ${target} in ${seen.ms} ms` };
  if (seen.kind === 'tls-failed') {
    return [
      opened,
      {
        status: 'fail',
        finding: `TLS through the proxy: no handshake with ${host} (${seen.code})`,
        advice: `check that ${target} serves https, and that ${proxy.label} does not filter the connection`,
      },
    ];
  }
  if (seen.trusted) {
    return [opened, { status: 'ok', finding: `TLS through the proxy: ${host} presents a certificate issued by "${seen.issuer}", trusted` }];
  }
  const error = seen.authorizationError ?? 'untrusted';
  if (error === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return [
      opened,
      {
        status: 'fail',
        finding: `TLS through the proxy: the certificate presented for ${host} names "${seen.subject}", not ${host} (issued by "${seen.issuer}")`,
        advice: `check the host name in DEVICE_AGENT_BASE_URL${whereOn().inFile}; a TLS-inspecting proxy that names the wrong host needs fixing by its administrators`,
      },
    ];
  }
  return [
    opened,
    {
      status: 'fail',
      finding: `TLS through the proxy: the certificate presented for ${host} is issued by "${seen.issuer}", which this host does not trust (${error})`,
      advice:
        `${proxy.label} inspects TLS with its own CA: put that CA ("${seen.issuer}", as PEM) in the file named by caFile (DEVICE_AGENT_CA_FILE${whereOn().inFile}), ` +
        'or install it in the system store (update-ca-certificates) and keep systemCa on',
    },
  ];
}
