import { http, https } from '../util/node-http.js';
import { keptState, STATUS_NODE_HEADER, STATUS_SERVER_HEADER, type StatusEndpointState } from '../status/endpoint-state.js';
import type { CheckResult } from './checklist.js';
import { whereOn } from './where.js';
import { ConfigError } from '../config/errors.js';
import { loadWebConfig } from '../status/web-config.js';

// The status endpoint, as a remote Prometheus and the role's post-check see it: doctor asks the configured address for
// /healthz and tells the agent's answer (its Server header) from another program holding the port, and this host's
// agent (its node id, from the state directory or the settings) from another agent holding it (another checkout,
// another state directory); what the daemon kept in the state directory says why its endpoint is not there.

const ANSWER_TIMEOUT_MS = 3_000;
const FREE_ADVICE = `free the port (ss -ltnp shows who holds it), or set DEVICE_AGENT_STATUS_LISTEN${whereOn().inFile} to a free HOST:PORT or off, and restart the agent`;

export interface StatusCheckInput {
  listen: string;
  stateDir: string;
  /** This host's node id and where it is from ("kept in FILE", "DEVICE_AGENT_NODE_ID"); none when none is kept yet. */
  nodeId?: { id: string; from: string };
  /** statusWebConfigFile: whether the endpoint speaks TLS, and a file the daemon would refuse. */
  webConfigFile?: string;
  timeoutMs?: number;
}

type Probe =
  | { kind: 'answer'; status: number; server: string | undefined; nodeId: string | undefined; body: string }
  | { kind: 'refused' }
  | { kind: 'silent' }
  | { kind: 'error'; message: string };

export async function checkStatusEndpoint(input: StatusCheckInput) {
  return [await endpointResult(input)];
}

async function endpointResult(input: StatusCheckInput): Promise<CheckResult> {
  if (input.listen === 'off') return { status: 'ok', finding: 'status endpoint: off (statusListen), no /healthz or /metrics' };
  let tls = false;
  if (input.webConfigFile) {
    try {
      tls = Boolean(loadWebConfig(input.webConfigFile).tls);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return {
        status: 'fail',
        config: true,
        finding: `status endpoint: ${err.message}`,
        advice: 'fix the web configuration file (the format node_exporter reads), or unset statusWebConfigFile',
      };
    }
  }
  const kept = keptState(input.stateDir);
  const daemon = kept?.listen === input.listen ? kept : undefined;
  if (daemon && !daemon.listening) {
    return {
      status: 'fail',
      finding: `status endpoint: the daemon (pid ${daemon.pid}) cannot listen on ${input.listen} since ${daemon.since}: ${daemon.problem ?? 'no reason kept'}; /healthz and /metrics are off`,
      advice: FREE_ADVICE,
    };
  }
  const address = localAddress(daemon?.bound ?? input.listen);
  if (address === undefined) return { status: 'warn', finding: `status endpoint: ${input.listen} has no fixed port and no daemon runs to say which it took` };
  const where = `${tls ? 'https' : 'http'}://${address}`;
  const timeoutMs = input.timeoutMs ?? ANSWER_TIMEOUT_MS;
  const probe = await ask(`${where}/healthz`, timeoutMs);
  switch (probe.kind) {
    case 'refused':
      // Not a fault of the endpoint: doctor also runs before the first start, and the port is then free for it.
      return {
        status: 'ok',
        finding: `status endpoint: nothing listens on ${where}: the daemon is not running, and the port is free for it`,
      };
    case 'silent':
      // The daemon's own kept word says it listens there, and it is alive: the port is the agent's, not another
      // program's; it is slow to answer.
      if (daemon)
        return {
          status: 'warn',
          finding: `status endpoint: the agent (pid ${daemon.pid}) listens on ${where} but gave no HTTP answer within ${timeoutMs / 1000} s: it is busy (starting, or the host is loaded) or stuck; a scrape would time out the same way`,
          advice: 'run doctor again; if it stays so, see its log (journalctl -u device-agent) and restart it (systemctl restart device-agent)',
        };
      return {
        status: 'fail',
        finding: `status endpoint: ${where} is held by another program: it took the connection and gave no HTTP answer within ${timeoutMs / 1000} s`,
        advice: FREE_ADVICE,
      };
    case 'error':
      return { status: 'fail', finding: `status endpoint: ${where} answers, but not as the agent's endpoint does: ${probe.message}`, advice: FREE_ADVICE };
    case 'answer':
      break;
  }
  if (probe.server !== STATUS_SERVER_HEADER) {
    return {
      status: 'fail',
      finding: `status endpoint: ${where} is held by another program, not the agent (it answered HTTP ${probe.status}${probe.server ? `, Server: ${probe.server}` : ', no Server header'}); the agent's /healthz and /metrics are not there`,
      advice: FREE_ADVICE,
    };
  }
  const other = anotherAgent(probe, input, daemon, where);
  if (other) return other;
  if (probe.status === 200) return { status: 'ok', finding: `status endpoint: the agent answers on ${where}, healthy` };
  if (probe.status === 401)
    return { status: 'ok', finding: `status endpoint: the agent answers on ${where} (basic authentication asked, as its web config says)` };
  return {
    status: 'warn',
    finding: `status endpoint: the agent answers on ${where}, unhealthy (HTTP ${probe.status}): ${probe.body.trim().replace(/^unhealthy: /, '')}`,
    advice: 'the lines of the checklist above say what is wrong; /healthz turns 200 once a report is delivered',
  };
}

/**
 * Whether the agent answering is not this host's: its node id (the header its answers carry) is another than the one
 * this host keeps, or this host keeps none (its daemon keeps one before it listens). Where the answer says no id (basic
 * authentication asked, or a version that did not say it), the daemon's own kept word that it listens there, alive,
 * stands for it; without it, doctor cannot tell and says so.
 */
function anotherAgent(
  probe: Extract<Probe, { kind: 'answer' }>,
  input: StatusCheckInput,
  daemon: StatusEndpointState | undefined,
  where: string,
): CheckResult | undefined {
  const port = /:(\d+)$/.exec(where)?.[1];
  const stop = `stop the other agent (ss -ltnp 'sport = :${port}' shows its pid), or give one of them another DEVICE_AGENT_STATUS_LISTEN${whereOn().inFile}`;
  if (probe.nodeId === undefined) {
    if (daemon) return undefined;
    return {
      status: 'warn',
      finding:
        `status endpoint: an agent answers on ${where} but ${probe.status === 401 ? 'asks for basic authentication before it says' : 'does not say'} its node id, ` +
        `and no daemon of this state directory (${input.stateDir}) says it listens there: it may be another agent than this host's`,
      advice: `if this host's agent runs, run doctor with its settings (the service's: see the README); else ${stop}`,
    };
  }
  if (input.nodeId?.id === probe.nodeId) return undefined;
  const theirs = `another device-agent answers on ${where}: its node id is ${probe.nodeId}`;
  return {
    status: 'fail',
    finding:
      input.nodeId === undefined
        ? `status endpoint: ${theirs}, and this configuration keeps none yet (state directory ${input.stateDir}): it is not this host's agent (another checkout or state directory); a scraper would read its /healthz and /metrics for this host's`
        : `status endpoint: ${theirs}, not this host's ${input.nodeId.id} (${input.nodeId.from}): another checkout or state directory holds the port; a scraper would read its /healthz and /metrics for this host's`,
    advice: `${stop}; if it is this host's service, doctor runs with other settings than it: run doctor as the service runs (see the README)`,
  };
}

/** HOST:PORT to ask from this host: a wildcard address is asked on loopback; port 0 has no address. */
export function localAddress(listen: string) {
  const m = /^(.+):(\d+)$/.exec(listen);
  if (!m || m[2] === '0') return undefined;
  const host = m[1] === '0.0.0.0' ? '127.0.0.1' : m[1] === '[::]' || m[1] === '::' ? '[::1]' : m[1]!;
  return `${host}:${m[2]}`;
}

/** One GET, its body kept up to `maxChars`: what answered, or why nothing did. */
export function ask(url: string, timeoutMs: number, maxChars = 4096): Promise<Probe> {
  return new Promise((resolve) => {
    const client = url.startsWith('https:') ? https : http;
    // The endpoint's own certificate is not what doctor checks here (a self-signed one is common): only who answers.
    const req = client.get(url, { timeout: timeoutMs, rejectUnauthorized: false, headers: { accept: 'text/plain' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (body.length < maxChars) body += c;
      });
      res.on('end', () =>
        resolve({
          kind: 'answer',
          status: res.statusCode ?? 0,
          server: header(res.headers.server),
          nodeId: decoded(header(res.headers[STATUS_NODE_HEADER])),
          body,
        }),
      );
      res.on('error', (err) => resolve({ kind: 'error', message: err.message }));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ kind: 'silent' });
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'error', message: err.message }));
  });
}

function header(v: string | string[] | undefined) {
  return Array.isArray(v) ? v[0] : v;
}

/** The node id the header carries, URI-encoded; a value that does not decode is taken as it is. */
function decoded(v: string | undefined) {
  if (v === undefined) return undefined;
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}
