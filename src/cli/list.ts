import { buildParts } from '../agent/build.js';
import { deviceRows } from '../status/device-rows.js';
import { hubPortsOf } from '../config/hub-ports.js';
import { chargeWaysOf } from '../config/charge-ways.js';
import { paintFor } from '../util/paint.js';
import { EXIT } from './commands.js';
import { listOnce, stopSources } from './inventory.js';
import { warnOfServiceStateDir } from './service-state.js';
import type { Setup } from './setup.js';
import { formatTable } from './table.js';
import { SamsungProtection } from '../recovery/samsung-protection.js';
import type { Parts } from '../agent/build.js';

/**
 * One inventory, shown to a person (or as JSON with --json); sends nothing.
 * Same settings and discovery as `once`. Exits 1 when a source did not
 * answer: "no devices" must not stand for "no adb server" in a script.
 */
export async function list(setup: Setup, env: NodeJS.ProcessEnv, json: boolean, stdout: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  warnOfServiceStateDir(setup, env);
  const parts = buildParts(setup.settings, env, setup.logger, { nodeId: 'list' });
  try {
    const complete = await listOnce(parts, 'error');
    const devices = await parts.reporter.inventory({ refresh: 'all', waitForAll: true });
    await readProtection(parts);
    const rows = deviceRows(devices, parts.registry, hubPortsOf(parts.settings.hubPorts), chargeWaysOf(parts.settings.charge.ways));
    // Without a whole listing, an empty table would read as an empty lab: the error line says it all.
    if (rows.length || complete) stdout.write(json ? JSON.stringify(rows, null, 2) + '\n' : formatTable(rows, paintFor(stdout, env)));
    return complete ? EXIT.ok : EXIT.failed;
  } finally {
    stopSources(parts);
  }
}

/** Reads Samsung's protect_battery of the phones with that way, for the CHARGE column; `list` never writes it (it asks no cloud). */
async function readProtection(parts: Parts): Promise<void> {
  const { registry, settings, stats, logger, clock, android } = parts;
  const protection = new SamsungProtection({ adb: android.adb, registry, settings, booking: undefined, stats, logger, clock });
  protection.devicesChanged();
  await protection.settled();
  protection.stop();
}
