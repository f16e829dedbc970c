import { join } from 'node:path';
import { readStateFile } from '../util/atomic-file.js';
import { dropUndefined } from '../util/drop-undefined.js';
import { jsonObject } from '../util/json-object.js';
import { pidAlive, processIdentity } from '../util/process-identity.js';

// What the daemon keeps in the state directory about its status endpoint (status-endpoint.json), and what `doctor`
// reads back: an endpoint that could not listen cannot say so itself.

export const STATUS_STATE_FILE = 'status-endpoint.json';

/** The Server header of the agent's status endpoint: how a client tells it from another program on the port. */
export const STATUS_SERVER_HEADER = 'device-agent';

/**
 * The header carrying the node id (URI-encoded) on answers past the Host check and authentication: how `doctor` tells
 * this host's agent from another on the port. No secret: the id names the host in every report.
 */
export const STATUS_NODE_HEADER = 'device-agent-node-id';

export interface StatusEndpointState {
  pid: number;
  /** Who that pid was (src/util/process-identity.ts): a pid handed out again later is not the daemon. */
  started?: string;
  /** When this state began (ISO). */
  since: string;
  /** The statusListen setting: HOST:PORT or off. */
  listen: string;
  listening: boolean;
  /** The address it listens on (a port 0 resolved). */
  bound?: string;
  /** Why it does not listen. */
  problem?: string;
}

/** The kept state, or undefined for a file that is not one. Pure. */
export function parseEndpointState(text: string) {
  const v = jsonObject(text) as Partial<StatusEndpointState> | undefined;
  if (typeof v?.pid !== 'number' || typeof v.listen !== 'string' || typeof v.listening !== 'boolean' || typeof v.since !== 'string') return undefined;
  return dropUndefined({
    pid: v.pid,
    started: typeof v.started === 'string' ? v.started : undefined,
    since: v.since,
    listen: v.listen,
    listening: v.listening,
    bound: typeof v.bound === 'string' ? v.bound : undefined,
    problem: typeof v.problem === 'string' ? v.problem : undefined,
  });
}

/** The state the daemon running on the state directory `dir` kept there: none when it is not readable as one, or its process is gone. */
export function keptState(dir: string) {
  try {
    const text = readStateFile(join(dir, STATUS_STATE_FILE), 64 * 1024);
    const kept = text === undefined ? undefined : parseEndpointState(text);
    return kept && stillRuns(kept) ? kept : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that kept the state still runs: its pid alive, and,
 * where the state says who it was, the same process (a pid is handed out
 * again: after a reboot the kept one is often another service's). Where
 * /proc cannot say, the live pid is taken for it, as before.
 */
function stillRuns(kept: StatusEndpointState) {
  if (!pidAlive(kept.pid)) return false;
  if (kept.started === undefined) return true;
  const now = processIdentity(kept.pid);
  return now === undefined || now === kept.started;
}
