import { buildParts, rowContext } from '../agent/parts.js';
import type { LongDevice } from '../platforms/android/adb/devices-long.js';
import { isReadyState } from '../cloud/device-facts.js';
import { deviceRows } from '../status/device-rows.js';
import { oneShotInventory } from './inventory.js';
import type { Setup } from './setup.js';
import { ansiPaint, formatTable, noPaint } from './table.js';

/**
 * One inventory, shown to a person (or as JSON with --json); sends nothing.
 * Same settings and discovery as `once`.
 */
export async function list(setup: Setup, env: NodeJS.ProcessEnv, json: boolean, stdout: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  const parts = buildParts(setup.settings, env, setup.logger);
  const inventory = oneShotInventory(parts, setup, env);
  const [devices, topology] = await Promise.all([
    inventory.collect(),
    parts.adb.listDevicesLong().then(
      (l) => new Map(l.map((d) => [d.serial, d])),
      () => new Map<string, LongDevice>(),
    ),
  ]);
  const at = Date.now();
  const rows = deviceRows(devices, rowContext(parts, topology, (udid) => (devices.some((d) => d.udid === udid && d.isIos && isReadyState(d.state)) ? at : undefined)));
  if (json) {
    stdout.write(JSON.stringify(rows, null, 2) + '\n');
    return 0;
  }
  const colour = stdout.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  stdout.write(formatTable(rows, colour ? ansiPaint : noPaint));
  return 0;
}
