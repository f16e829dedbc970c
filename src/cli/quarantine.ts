// `device-agent quarantine list` and `quarantine release SERIAL`: the phones
// quarantine holds out of service, read from its file in the state directory
// (src/devices/quarantine.ts); a release is a request file left in that
// directory, which the running daemon takes within a second (its quarantine
// action looks every second) and removes. A file rather than the status
// endpoint: the endpoint may listen beyond loopback for a scraper, may be
// off, and answers GET only; the state directory is the daemon's own, so
// who may write there (its user, root, its group: the package's operators)
// is who may put a phone back, by the file system's word, with no second
// secret to keep. Works with the daemon stopped too: the request is taken
// when it starts.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { stateDirOf } from '../config/node-id.js';
import { accessAdvice } from '../config/service-state.js';
import {
  QUARANTINE_FILE,
  QUARANTINE_FILE_MAX_BYTES,
  QUARANTINE_REQUESTS_DIR,
  quarantined,
  quarantineFileFrom,
  type QuarantineEntry,
} from '../devices/quarantine.js';
import { stateWriteProblem } from '../log/state-dir-trouble.js';
import { keptState } from '../status/endpoint-state.js';
import { readStateFile, writeAtomically } from '../util/atomic-file.js';
import { EXIT } from './commands.js';
import type { Setup } from './setup.js';
import { utcText } from '../util/clock.js';

/** How long `release` waits for the running daemon to take its request: it looks every second; a loaded host, a few. */
const RELEASE_WAIT_MS = 10_000;
const POLL_MS = 100;

type Out = NodeJS.WritableStream;

/** The kept quarantines, or why they cannot be read. */
function kept(dir: string): Map<string, QuarantineEntry> | string {
  const file = join(dir, QUARANTINE_FILE);
  let text: string | undefined;
  try {
    text = readStateFile(file, QUARANTINE_FILE_MAX_BYTES);
  } catch (err) {
    const advice = accessAdvice(err);
    return `cannot read ${file}: ${advice ? `this user may not${advice}` : (err as Error).message}`;
  }
  if (text === undefined) return new Map();
  return quarantineFileFrom(text) ?? `${file} is not a quarantine file the agent wrote; the daemon replaces it at its next change`;
}

export async function quarantine(setup: Setup, env: NodeJS.ProcessEnv, operands: readonly string[], json: boolean, stdout: Out, stderr: Out = process.stderr) {
  const dir = stateDirOf(setup.settings, env);
  const entries = kept(dir);
  const [verb, phone] = operands;
  if (typeof entries === 'string') {
    stderr.write(`device-agent: ${entries}\n`);
    return EXIT.failed;
  }
  const held = [...entries].flatMap(([udid, e]) => (quarantined(e) ? [[udid, e] as const] : []));
  if (verb === 'list') {
    if (phone !== undefined) {
      stderr.write('device-agent: quarantine list takes no SERIAL (device-agent quarantine --help)\n');
      return EXIT.config;
    }
    if (json) {
      const rows = held.map(([udid, e]) => ({
        udid,
        serial: e.serial,
        since: utcText(e.since),
        until: utcText(e.until),
        layer: e.layer,
        reason: e.reason,
        evidence: e.evidence ?? [],
        incident: e.incident,
      }));
      stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      return EXIT.ok;
    }
    if (held.length === 0) {
      stdout.write(`no phone is quarantined (state directory ${dir})\n`);
      return EXIT.ok;
    }
    for (const [udid, e] of held) {
      stdout.write(
        `${e.serial}${udid !== e.serial ? ` (${udid})` : ''}: since ${utcText(e.since)} until ${utcText(e.until)}, ${e.reason ?? 'kept failing'}${e.layer ? `, blamed on its ${e.layer}` : ''}\n`,
      );
      for (const line of e.evidence ?? []) stdout.write(`  ${line}\n`);
      if (e.incident) stdout.write(`  history: device-agent incidents ${e.serial}\n`);
    }
    return EXIT.ok;
  }
  if (verb !== 'release' || phone === undefined) {
    stderr.write(`device-agent: quarantine takes list, or release SERIAL, got: ${operands.join(' ')} (device-agent quarantine --help)\n`);
    return EXIT.config;
  }
  const found = held.find(([udid, e]) => udid === phone || e.serial === phone);
  if (!found) {
    stderr.write(`device-agent: ${phone} is not quarantined (device-agent quarantine list names those that are)\n`);
    return EXIT.failed;
  }
  const [udid] = found;
  const requests = join(dir, QUARANTINE_REQUESTS_DIR);
  const request = join(requests, `${Date.now()}-${randomBytes(4).toString('hex')}.json`);
  const by = (() => {
    try {
      return userInfo().username;
    } catch {
      return `uid ${process.getuid?.() ?? '?'}`;
    }
  })();
  try {
    writeAtomically(request, `${JSON.stringify({ release: udid, by, at: Date.now() })}\n`);
  } catch (err) {
    stderr.write(`device-agent: cannot leave the release of ${phone} in ${requests}: ${stateWriteProblem(err)}${accessAdvice(err)}\n`);
    return EXIT.failed;
  }
  const daemon = keptState(dir);
  if (!daemon) {
    stdout.write(`${phone}: release asked; the daemon does not run on ${dir}, and takes it when it starts\n`);
    return EXIT.ok;
  }
  const until = Date.now() + RELEASE_WAIT_MS;
  while (Date.now() < until && existsSync(request)) await new Promise((r) => setTimeout(r, POLL_MS));
  if (existsSync(request)) {
    stderr.write(
      `device-agent: the daemon (pid ${daemon.pid}) did not take the release of ${phone} within ${RELEASE_WAIT_MS / 1000} s; it stays in ${requests} and is taken when the daemon next looks (is the daemon running with this state directory?)\n`,
    );
    return EXIT.failed;
  }
  const after = kept(dir);
  const released = typeof after !== 'string' && !quarantined(after.get(udid));
  stdout.write(
    released
      ? `${phone}: released; back in service with the daemon's next report\n`
      : `${phone}: the daemon took the release; it is no longer quarantined once it has saved it (device-agent quarantine list)\n`,
  );
  return EXIT.ok;
}
