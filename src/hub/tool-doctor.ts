// The hub tools the settings call on: recovery's power cycle and charge control switch hub ports by running a program,
// and a program missing from the host shows only when a phone needs it (a cycle that fails, a pause that never starts).
// Their doctor lines (each feature's: recovery's for recovery.powerCycleCommand, charge control's for charge.command)
// look for it up front, as the agent would run it (execFile: a path as given, a bare name through PATH).

import { accessSync, constants, statSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { chargeWaysOf } from '../config/charge-ways.js';
import type { Settings } from '../config/schema.js';
import { hubPortsOf } from '../config/hub-ports.js';
import { hubListings } from './uhubctl.js';

/** One line of the doctor's checklist (src/platforms/doctor.ts's CheckItem, which this layer sits below). */
interface ToolLine {
  status: 'ok' | 'fail';
  finding: string;
  advice?: string;
}

interface HubToolSettings {
  recovery: Pick<Settings['recovery'], 'powerCycle' | 'powerCycleCommand'>;
  charge: { ways: readonly string[]; command?: string | undefined };
  /** The hub ports mapped to phones: uhubctl's status listing must show each. */
  hubPorts?: readonly string[];
}

const STATUS_TIMEOUT_MS = 10_000;

/** Where the program is, or why it cannot be run. */
export function locate(program: string, path: string | undefined): { found: string } | { missing: string } {
  const candidates = program.includes('/')
    ? [program]
    : (path ?? '')
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, program));
  let notExecutable: string | undefined;
  for (const file of candidates) {
    try {
      if (!statSync(file).isFile()) continue;
    } catch {
      continue;
    }
    try {
      accessSync(file, constants.X_OK);
      return { found: file };
    } catch {
      notExecutable ??= file;
    }
  }
  if (notExecutable) return { missing: `${notExecutable} is not executable` };
  return { missing: program.includes('/') ? `${program} does not exist` : `${program} is not on PATH` };
}

/** The line of the hub tool that `setting` names, when the settings call on it (recovery's power cycle or charge control's uhubctl way, its `command` way); none when they do not. */
export async function hubToolItems(settings: HubToolSettings, env: NodeJS.ProcessEnv, setting: 'recovery.powerCycleCommand' | 'charge.command') {
  const ways = new Set(chargeWaysOf(settings.charge.ways).map((w) => w.way));
  const cycle = setting === 'recovery.powerCycleCommand';
  const users = cycle
    ? [...(settings.recovery.powerCycle ? ['recovery.powerCycle'] : []), ...(ways.has('uhubctl') ? ['charge.ways uhubctl'] : [])]
    : ways.has('command')
      ? ['charge.ways command']
      : [];
  const program = (cycle ? settings.recovery.powerCycleCommand : settings.charge.command)?.split(/\s+/).find(Boolean);
  return users.length && program ? [await hubToolItem(settings, setting, program, users.join(', '), env)] : [];
}

async function hubToolItem(settings: HubToolSettings, setting: string, program: string, who: string, env: NodeJS.ProcessEnv): Promise<ToolLine> {
  const where = locate(program, env.PATH);
  if ('found' in where) {
    const head = `hub tool ${program} (${setting}, for ${who}): ${where.found}`;
    // uhubctl itself: a wrapper (sudo) may ask for what doctor cannot give, and the hub helper's client is checked through the helper (doctor-item.ts).
    if (setting !== 'recovery.powerCycleCommand' || basename(program) !== 'uhubctl' || !settings.hubPorts?.length) return { status: 'ok', finding: head };
    // The status listing of each mapped hub by uhubctl's command: a tool that runs but sees no hub switches nothing.
    const listings = await hubListings(
      settings.recovery.powerCycleCommand.split(/\s+/).filter(Boolean),
      hubPortsOf(settings.hubPorts).values(),
      STATUS_TIMEOUT_MS,
      env,
    );
    const problems = listings.flatMap((l) => l.problem ?? []);
    if (problems.length === 0)
      return { status: 'ok', finding: `${head}; its status listing shows ${listings.map((l) => `hub ${l.hub} port ${l.ports.join(', ')}`).join('; ')}` };
    return {
      status: 'fail',
      finding: `${head}, but ${problems.join('; ')}`,
      advice: `compare hubPorts with what \`${program} -l HUB\` lists (each hub's location and port) and fix the one that differs, or the hub's cabling; until then that port is never switched`,
    };
  }
  const install = program.split('/').pop() === 'uhubctl' ? 'install uhubctl (`apt install uhubctl`) or ' : '';
  return {
    status: 'fail',
    finding: `hub tool ${program} (${setting}, for ${who}): ${where.missing}`,
    advice: `${install}set ${setting} to a program this host can run (a full path, or a name on the agent's PATH); until then no hub port is switched`,
  };
}
