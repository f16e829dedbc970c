import { buildParts } from '../agent/build.js';
import { deviceRows } from '../status/device-rows.js';
import { listOnce, stopSources } from './inventory.js';
import type { Setup } from './setup.js';
import { ansiPaint, formatTable, noPaint } from './table.js';

/**
 * One inventory, shown to a person (or as JSON with --json); sends nothing.
 * Same settings and discovery as `once`.
 */
export async function list(setup: Setup, env: NodeJS.ProcessEnv, json: boolean, stdout: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  const parts = buildParts(setup.settings, env, setup.logger, { nodeId: 'list' });
  try {
    await listOnce(parts);
    const devices = await parts.reporter.inventory({ refresh: 'all', waitForAll: true });
    const rows = deviceRows(devices, parts.registry);
    if (json) {
      stdout.write(JSON.stringify(rows, null, 2) + '\n');
      return 0;
    }
    const colour = stdout.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
    stdout.write(formatTable(rows, colour ? ansiPaint : noPaint));
    return 0;
  } finally {
    stopSources(parts);
  }
}
