import { buildParts } from '../agent/build.js';
import { deviceRows } from '../status/device-rows.js';
import { paintFor } from '../util/paint.js';
import { EXIT } from './commands.js';
import { listOnce, stopSources } from './inventory.js';
import { warnOfServiceStateDir } from './service-state.js';
import type { Setup } from './setup.js';
import { formatTable } from './table.js';
import { columnsOf } from '../devices/feature.js';
import { readOnce } from '../agent/actions.js';
import { platformFacts } from '../agent/platforms.js';
import type { Parts } from '../agent/build.js';
import type { Logger } from '../log/logger.js';
import type { DeviceInfo } from '../cloud/types.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * How long `list` waits at most for devices adb is still connecting or
 * authorizing to settle (a fresh adb server reconnecting many phones), re-reading
 * adb's list every LIST_SETTLE_POLL_MS; past it, they are listed in adb's state
 * and stderr says they are still connecting.
 */
export const LIST_SETTLE_MS = 10_000;
const LIST_SETTLE_POLL_MS = 500;
const SETTLING = new Set(['connecting', 'authorizing']);

/**
 * One inventory, shown to a person (or as JSON with --json); sends nothing.
 * Same settings and discovery as `once`. Exits 1 when a source did not
 * answer: "no devices" must not stand for "no adb server" in a script.
 */
export async function list(setup: Setup, env: NodeJS.ProcessEnv, json: boolean, stdout: NodeJS.WritableStream & { isTTY?: boolean }): Promise<number> {
  warnOfServiceStateDir(setup, env);
  const parts = buildParts(setup.settings, env, setup.logger, { nodeId: 'list' });
  try {
    const complete = await settledListing(
      () => listOnce(parts),
      () => settling(parts),
      setup.logger,
    );
    const devices = withUnreported(await parts.reporter.inventory({ refresh: 'all', waitForAll: true }), parts);
    // What a feature shows of a phone that only its action reads (a setting of the phone, for a column); `list` writes nothing (it asks no cloud).
    await readOnce(parts);
    // The look-up the actions use: a key naming two phones shows no port or way for either, as none is switched.
    const rows = deviceRows(devices, parts.registry, {
      names: parts.names,
      mapping: { look: parts.mapping, platform: parts.control.platform },
      features: parts.features,
      facts: { pageSize: (key) => platformFacts.pageSize(parts.registry, key) },
    });
    // Without a whole listing, an empty table would read as an empty lab: the error line says it all.
    if (rows.length || complete)
      stdout.write(json ? JSON.stringify(rows, null, 2) + '\n' : formatTable(rows, paintFor(stdout, env), columnsOf(parts.features)));
    return complete ? EXIT.ok : EXIT.failed;
  } finally {
    stopSources(parts);
  }
}

/**
 * adb's listing, read again every LIST_SETTLE_POLL_MS while a device in it is
 * still connecting or authorizing, LIST_SETTLE_MS at most; past it, one
 * warning names how many are still settling. Resolves with whether the last
 * listing was complete.
 */
export async function settledListing(
  read: () => Promise<boolean>,
  settlingNow: () => string[],
  logger: Logger,
  time: { now(): number; sleep(ms: number): Promise<unknown> } = { now: Date.now, sleep },
): Promise<boolean> {
  let complete = await read();
  const until = time.now() + LIST_SETTLE_MS;
  while (complete && settlingNow().length && time.now() < until) {
    await time.sleep(LIST_SETTLE_POLL_MS);
    complete = await read();
  }
  const still = settlingNow();
  // An incomplete listing (adb did not answer) was not waited on: its own error line says it all.
  if (complete && still.length)
    logger.warn(
      { serials: still.slice(0, 20) },
      `${still.length} device${still.length === 1 ? ' is' : 's are'} still connecting or authorizing in adb after ${LIST_SETTLE_MS / 1000} s; listed in that state (run list again for their inventories)`,
    );
  return complete;
}

/** Serials adb is still connecting or authorizing. */
function settling(parts: Parts): string[] {
  return parts.registry.list(parts.unready.platform).flatMap((r) => (SETTLING.has(r.state) ? [r.serial] : []));
}

/**
 * Every device the adb server lists gets a row, in every state: reports leave
 * out a network device that has not said who it is (its HOST:PORT is no
 * udid), but a person asking what is attached must see it (issue 34).
 */
function withUnreported(devices: DeviceInfo[], parts: Parts): DeviceInfo[] {
  const shown = new Set(devices.map((d) => d.udid));
  const more: DeviceInfo[] = [];
  for (const r of parts.registry.list(parts.unready.platform)) {
    if (r.udid !== undefined ? shown.has(r.udid) : shown.has(r.serial)) continue;
    more.push(parts.unready.describe(r.serial, r.state, r.udid));
  }
  return [...devices, ...more];
}
