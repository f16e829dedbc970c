import { buildParts } from '../agent/build.js';
import { deviceRows, type DeviceRow } from '../status/device-rows.js';
import { hubNamesOf } from '../config/hub-ports.js';
import { paintFor } from '../util/paint.js';
import { EXIT } from './commands.js';
import { listOnce, stopSources } from './inventory.js';
import type { Setup } from './setup.js';
import { formatNotes, formatTable } from './table.js';
import { columnsOf } from '../devices/feature.js';
import { readOnce, type Parts } from '../agent/build.js';
import { platformFacts } from '../agent/platforms.js';
import type { Logger, Sink } from '../log/logger.js';
import type { DeviceInfo } from '../cloud/types.js';
import { composeMessage } from '../cloud/device-message.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { waitingFor, type StatusLine } from './progress.js';
import { daemonView } from './daemon-view.js';
import { stateDirOf } from '../config/node-id.js';

/** How long `list` waits at most for devices adb is still connecting or authorizing, re-reading adb's list meanwhile. */
export const LIST_SETTLE_MS = 10_000;
const LIST_SETTLE_POLL_MS = 500;
const SETTLING = new Set(['connecting', 'authorizing']);

/** One inventory shown to a person (or --json); sends nothing. Exits 1 when a source did not answer: "no devices" is not "no adb". */
export async function list(setup: Setup, env: NodeJS.ProcessEnv, json: boolean, stdout: Sink, output: { line?: StatusLine; lines?: DeviceLines } = {}) {
  const { line, lines } = output;
  const parts = buildParts(setup.settings, env, setup.logger, { nodeId: 'list' });
  const show = (rows: DeviceRow[]) =>
    stdout.write(json ? JSON.stringify(rows, null, 2) + '\n' : formatTable(rows, paintFor(stdout, env), columnsOf(parts.features)) + formatNotes(rows));
  // The agent running here: its rows, as its report, /metrics and its page show them now.
  const daemon = await daemonView(stateDirOf(setup.settings, env));
  if (daemon) {
    setup.logger.info({ pid: daemon.pid }, `the phones as the agent running here (pid ${daemon.pid}) knows them now`);
    show(daemon.rows);
    return EXIT.ok;
  }
  try {
    // While the sources list their devices, and adb settles the ones still connecting.
    line?.follow(
      waitLine(
        `listing devices: ${parts.sources.map((s) => s.label).join(', ')}`,
        () => settling(parts),
        'device',
        'devices',
        ` adb is still connecting, at most ${LIST_SETTLE_MS / 1000} s`,
      ),
    );
    const complete = await settledListing(
      () => listOnce(parts),
      () => settling(parts),
      setup.logger,
    );
    // While the inventories run: the phones whose inventory has not ended, and how long each may take.
    line?.follow(
      waitLine(
        'reading inventories',
        () => parts.registry.list().flatMap((r) => (r.probing ? [r.serial] : [])),
        "phone's inventory",
        "phones' inventories",
        `, at most ${setup.settings.probeTimeoutSeconds} s`,
      ),
    );
    const devices = withUnreported(await parts.reporter.inventory({ refresh: 'all', waitForAll: true }), parts);
    // What a feature shows of a phone that only its action reads (a setting of the phone, for a column); `list` writes nothing (it asks no cloud).
    await readOnce(parts);
    line?.done();
    // The look-up the actions use: a key naming two phones shows no port or way for either, as none is switched.
    const rows = deviceRows(devices, parts.registry, {
      names: parts.names,
      mapping: { look: parts.mapping, platform: parts.control.platform },
      features: parts.features,
      facts: { pageSize: (key) => platformFacts.pageSize(parts.registry, key) },
      hubNames: hubNamesOf(setup.settings.hubNames),
    });
    // Before the table: what was said of a device it does not show; what it shows, its rows say.
    lines?.release(new Set(rows.flatMap((r) => [r.serial, r.udid])));
    // Without a whole listing, an empty table would read as an empty lab: the error line says it all.
    if (rows.length || complete) show(rows);
    return complete ? EXIT.ok : EXIT.failed;
  } finally {
    line?.done();
    // A list that ended early shows no row: every line held is written.
    lines?.release();
    stopSources(parts);
  }
}

/** What the status line says: who is still waited for (`names`), for how long, and `tail`; else `idle`. */
function waitLine(idle: string, names: () => string[], one: string, many: string, tail: string) {
  const t0 = Date.now();
  return () => {
    const still = names();
    return still.length ? `waiting ${Math.floor((Date.now() - t0) / 1000)} s for ${waitingFor(still.length, one, many, still)}${tail}` : idle;
  };
}

/** adb's listing, read again while a device is still connecting, LIST_SETTLE_MS at most (then one warning); resolves with whether it was complete. */
export async function settledListing(
  read: () => Promise<boolean>,
  settlingNow: () => string[],
  logger: Logger,
  time: { now(): number; sleep(ms: number): Promise<unknown> } = { now: Date.now, sleep },
) {
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
function settling(parts: Parts) {
  return parts.registry.list(parts.unready.platform).flatMap((r) => (SETTLING.has(r.state) ? [r.serial] : []));
}

/** Every device adb lists gets a row, in every state: a person asking what is attached must see even an unidentified network device. */
function withUnreported(devices: DeviceInfo[], parts: Parts) {
  const shown = new Set(devices.map((d) => d.udid));
  const more = parts.registry.list(parts.unready.platform).flatMap((r) => {
    if (shown.has(r.udid ?? r.serial)) return [];
    const info = parts.unready.describe(r.serial, r.state, r.udid);
    // Ready, but its inventory failed before it said who it is: that failure is why, not its state (adb's word is "device").
    return r.failure
      ? [{ ...info, ...composeMessage([`its inventory failed before it said who it is (${r.failure.text}); it is left out of reports until it answers`]) }]
      : [info];
  });
  return [...devices, ...more];
}

/**
 * A log line about one device, below an error, held until the rows are known: one about a device the table shows is its
 * row's to say; one about a device it does not show is written before the table. Lines about several devices or none,
 * and every error, are written at once.
 */
export class DeviceLines {
  private held: Array<{ ids: string[]; write: () => void }> = [];

  /** The logger's hold (LoggerOptions.hold). */
  readonly hold = (fields: Readonly<Record<string, unknown>>, level: number, write: () => void) => {
    const ids = [fields.serial, fields.udid].filter((id): id is string => typeof id === 'string');
    if (level >= PINO_ERROR || !ids.length || fields.serials !== undefined || fields.devices !== undefined) return false;
    this.held.push({ ids, write });
    return true;
  };

  /** Writes the held lines about no device of `shown` (serials and udids), and lets the others go; all of them when none is shown (no table). */
  release(shown: ReadonlySet<string> = new Set()) {
    const held = this.held;
    this.held = [];
    for (const line of held) if (!line.ids.some((id) => shown.has(id))) line.write();
  }
}

/** pino's number for error. */
const PINO_ERROR = 50;
