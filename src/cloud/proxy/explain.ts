// What a failure on the way through the proxy means: one sentence naming the proxy (never its credentials) and one
// piece of advice per kind. Pure.

import type { ProxyEndpoint } from '../../config/proxy-url.js';
import { answerText, describeFailure, type ProxyAnswer, type TunnelFailure } from './tunnel.js';

export type ProxyProblem = 'unreachable' | 'closed' | 'timeout' | 'credentials' | 'forbidden' | 'upstream' | 'refused' | 'untrusted-certificate';

/**
 * What happened, naming the proxy (`reason`), what to do (`advice`), and whether a quick retry can help (a proxy down or its
 * upstream failing can come back; refusals do not).
 */
const explained = (problem: ProxyProblem, reason: string, advice: string, retryable: boolean) => ({ problem, reason, advice, retryable });

export type ProxyExplanation = ReturnType<typeof explained>;

/** Where the proxy of a request is set, named for the advice. */
export interface ProxyContext {
  proxy: ProxyEndpoint;
  /** e.g. "httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY)" */
  setting: string;
  /** host:port of the cloud. */
  target: string;
}

const CA_ADVICE =
  'a proxy that inspects TLS presents certificates of its own CA: put that CA (PEM) in the file named by caFile (DEVICE_AGENT_CA_FILE), ' +
  'or install it in the system store (update-ca-certificates) and keep systemCa on; `device-agent doctor` shows who issued the certificate';

export function explainTunnelFailure(context: ProxyContext, failure: TunnelFailure) {
  const { proxy, setting, target } = context;
  // The tunnel's own words (tunnel.ts), where they say all.
  const reason = describeFailure(proxy.label, target, failure);
  switch (failure.step) {
    case 'connect':
      return explained('unreachable', reason, `check the proxy's host and port in ${setting}, and that the proxy is running`, true);
    case 'closed':
      if (failure.request !== undefined) {
        // The agent's only peer is the proxy: whatever happened behind it, the proxy is the hop that cut.
        return explained(
          'closed',
          `proxy ${proxy.label} cut the connection before answering ${failure.request} (${failure.code}); the cloud behind it did not answer the agent`,
          `a proxy that refuses credentials may cut instead of answering 407 (tinyproxy does, while a request body is on its way): ` +
            `check the user and password in ${setting}, and the proxy's own log`,
          true,
        );
      }
      return explained('closed', reason, `check that ${setting} names an HTTP proxy, and the proxy's own log`, true);
    case 'timeout':
      return explained('timeout', reason, `check that ${setting} names the right proxy and that the proxy reaches the cloud`, true);
    case 'answer':
      return explainStatus(context, failure);
  }
}

/** A status the proxy itself answered: to CONNECT, or (407) to a plain http request sent through it. */
export function explainStatus(context: ProxyContext, answer: ProxyAnswer) {
  const { proxy, setting, target } = context;
  const { status, authenticate } = answer;
  const answered = answerText(answer);
  // tinyproxy answers 401 to wrong credentials where squid answers 407.
  if (status === 407 || status === 401) {
    const schemes = authenticate.map((s) => s.toLowerCase());
    if (schemes.length > 0 && !schemes.includes('basic')) {
      return explained(
        'credentials',
        `proxy ${proxy.label} asks for ${authenticate.join(' or ')} authentication (${answered})`,
        'the agent speaks Basic proxy authentication only: ask the proxy administrators for a Basic account, or to let this host through by its address',
        false,
      );
    }
    if (proxy.username === undefined) {
      return explained(
        'credentials',
        `proxy ${proxy.label} requires credentials (${answered})`,
        `put the proxy account in ${setting} as http://USER:PASSWORD@HOST:PORT (percent-encode @ : / in them)`,
        false,
      );
    }
    return explained(
      'credentials',
      `proxy ${proxy.label} refused the credentials of user ${proxy.username} (${answered})`,
      `check the user and password in ${setting} (http://USER:PASSWORD@HOST:PORT, with @ : / percent-encoded)`,
      false,
    );
  }
  if (status === 403) {
    return explained(
      'forbidden',
      `proxy ${proxy.label} refused to open a tunnel to ${target} (${answered})`,
      `ask the proxy administrators to allow CONNECT to ${target} from this host (stock squid allows CONNECT to port 443 only), ` +
        `or add the cloud's host to noProxy (DEVICE_AGENT_NO_PROXY, else NO_PROXY) if this host may reach it directly`,
      false,
    );
  }
  if (status === 502 || status === 503 || status === 504) {
    return explained(
      'upstream',
      `proxy ${proxy.label} could not reach ${target} (${answered})`,
      `the proxy, or a proxy behind it, cannot reach the cloud: check the cloud's host in DEVICE_AGENT_BASE_URL and ask the proxy administrators`,
      true,
    );
  }
  return explained('refused', `proxy ${proxy.label} answered CONNECT ${target} with ${answered}`, `check ${setting} and the proxy's own log`, status >= 500);
}

/** A certificate that failed verification on a connection made through the proxy. */
export function explainUntrusted(context: ProxyContext, code: string) {
  const host = context.target.replace(/:\d+$/, '');
  const what = code === 'ERR_TLS_CERT_ALTNAME_INVALID' ? `does not name ${host}` : 'is not trusted';
  return explained('untrusted-certificate', `the certificate presented for ${host} through proxy ${context.proxy.label} ${what} (${code})`, CA_ADVICE, false);
}
