// `device-agent incidents [SERIAL]`: the incidents the flight recorder kept in
// the state directory (src/devices/incidents.ts), oldest first; with a
// SERIAL (adb serial or udid), that phone's, each with its recent history.
// Read-only, so it works with the daemon running; a file that is not one the
// agent wrote is named and skipped.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { stateDirOf } from '../config/node-id.js';
import { accessAdvice } from '../config/service-state.js';
import { idOfFileName, incidentFrom, INCIDENT_MAX_BYTES, INCIDENTS_DIR, type IncidentFile } from '../devices/incidents.js';
import { readStateFile } from '../util/atomic-file.js';
import { EXIT } from './commands.js';
import type { Setup } from './setup.js';
import { utcText } from '../util/clock.js';

export function incidents(
  setup: Setup,
  env: NodeJS.ProcessEnv,
  phone: string | undefined,
  json: boolean,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream = process.stderr,
) {
  const dir = join(stateDirOf(setup.settings, env), INCIDENTS_DIR);
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => idOfFileName(n) !== undefined)
      .sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      stderr.write(`device-agent: cannot read ${dir}: ${(err as Error).message}${accessAdvice(err)}\n`);
      return EXIT.failed;
    }
    names = [];
  }
  // A phone by what each file says (its serial or its udid): the file's name has its id made file-safe only.
  const files: Array<{ file: string } & IncidentFile> = [];
  for (const name of names) {
    const path = join(dir, name);
    let text: string | undefined;
    try {
      text = readStateFile(path, INCIDENT_MAX_BYTES);
    } catch (err) {
      stderr.write(`device-agent: skipped ${path}: ${(err as Error).message}\n`);
      continue;
    }
    const incident = text === undefined ? undefined : incidentFrom(text);
    if (!incident) {
      if (text !== undefined) stderr.write(`device-agent: skipped ${path}: not an incident the agent wrote\n`);
      continue;
    }
    if (phone !== undefined && incident.serial !== phone && incident.udid !== phone) continue;
    files.push({ file: name, ...incident });
  }
  if (json) {
    const rows = files.map((f) => ({
      ...f,
      at: utcText(f.at),
      events: phone === undefined ? f.events.length : f.events.map((e) => ({ ...e, at: utcText(e.at) })),
    }));
    stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  if (files.length === 0) {
    stdout.write(phone === undefined ? `no incidents kept (${dir})\n` : `no incidents kept for ${phone} (${dir})\n`);
    return EXIT.ok;
  }
  for (const f of files) {
    stdout.write(`${utcText(f.at)}  ${f.serial}${f.udid !== undefined && f.udid !== f.serial ? ` (${f.udid})` : ''}  ${f.kind}  ${f.cause}\n`);
    if (phone === undefined) continue;
    for (const e of f.events) stdout.write(`  ${utcText(e.at)}  ${e.kind.padEnd(10)} ${e.text}\n`);
    stdout.write(`  (${join(dir, f.file)})\n`);
  }
  return EXIT.ok;
}
