// What the daemon running on this host shows of its phones (GET /api/devices on its status endpoint: the rows the page,
// /metrics and the report fold from the one timeline), for `list`: while one runs, `list` prints what it knows at that
// instant rather than a second reading of the phones that could say otherwise. A daemon the CLI cannot ask (none runs,
// its endpoint is off, behind TLS or basic auth, or it does not answer in time) leaves `list` to read the phones itself.
import type { DeviceRow } from '../devices/feature-view.js';
import { keptState, stillRuns } from '../status/endpoint-state.js';
import { http } from '../util/node-http.js';

export interface DaemonView {
  pid: number;
  rows: DeviceRow[];
}

/** The running daemon's rows, or undefined when there is none to ask, or it does not answer with them. */
export async function daemonView(stateDir: string, timeoutMs = 3_000): Promise<DaemonView | undefined> {
  const kept = keptState(stateDir);
  if (!kept?.listening || kept.bound === undefined || !stillRuns(kept)) return undefined;
  // An endpoint on every address is asked on loopback.
  const at = kept.bound.replace(/^0\.0\.0\.0:/, '127.0.0.1:').replace(/^\[::\]:/, '[::1]:');
  const text = await get(`http://${at}/api/devices`, timeoutMs).catch(() => undefined);
  try {
    const rows = (JSON.parse(text ?? '') as { rows?: unknown }).rows;
    return Array.isArray(rows) ? { pid: kept.pid, rows: rows as DeviceRow[] } : undefined;
  } catch {
    return undefined;
  }
}

function get(url: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`HTTP ${res.statusCode}`));
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('no answer in time')));
    req.on('error', reject);
  });
}
