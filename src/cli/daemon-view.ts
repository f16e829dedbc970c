// What the daemon running on this host shows of its phones (GET /api/devices on its status endpoint: the rows the page,
// /metrics and the report fold from the one timeline), for `list`: while one runs, `list` prints what it knows at that
// instant rather than a second reading of the phones that could say otherwise. A daemon the CLI cannot ask (none runs,
// its endpoint is off, behind TLS or basic auth, or it does not answer in time) leaves `list` to read the phones itself.
import type { DeviceRow } from '../devices/feature-view.js';
import { keptState } from '../status/endpoint-state.js';
import { ask, localAddress } from '../doctor/status-endpoint.js';
import { jsonObject } from '../util/json-object.js';

/** The running daemon's rows, or undefined when there is none to ask, or it does not answer with them. */
export async function daemonView(stateDir: string) {
  const kept = keptState(stateDir);
  // Bound only while it listens.
  if (!kept?.bound) return undefined;
  // An endpoint on every address is asked on loopback.
  const answer = await ask(`http://${localAddress(kept.bound)}/api/devices`, 3_000, Infinity);
  const rows = answer.kind === 'answer' && answer.status === 200 ? jsonObject(answer.body)?.rows : undefined;
  return Array.isArray(rows) ? { pid: kept.pid, rows: rows as DeviceRow[] } : undefined;
}
