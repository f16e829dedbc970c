// The hub tools the settings call on: recovery's power cycle and charge
// control switch hub ports by running a program, and a program missing from
// the host shows only when a phone needs it (a cycle that fails, a pause that
// never starts). The doctor looks for it up front, as the agent would run it
// (execFile: a path as given, a bare name through PATH).

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chargeWaysOf } from '../config/charge-ways.js';
import type { Settings } from '../config/schema.js';
import type { CheckItem } from './checklist.js';

interface HubToolSettings {
  recovery: Pick<Settings['recovery'], 'powerCycle' | 'powerCycleCommand'>;
  charge: { ways: readonly string[]; command?: string | undefined };
}

interface Need {
  setting: string;
  program: string;
  /** What needs it, for the line. */
  users: string[];
}

/** The programs the settings will run, each with the settings that need it. */
function needs(settings: HubToolSettings): Need[] {
  const ways = new Set(chargeWaysOf(settings.charge.ways).map((w) => w.way));
  const out: Need[] = [];
  const uhubctlUsers = [...(settings.recovery.powerCycle ? ['recovery.powerCycle'] : []), ...(ways.has('uhubctl') ? ['charge.ways uhubctl'] : [])];
  const cycle = programOf(settings.recovery.powerCycleCommand);
  if (uhubctlUsers.length > 0 && cycle) out.push({ setting: 'recovery.powerCycleCommand', program: cycle, users: uhubctlUsers });
  const own = programOf(settings.charge.command);
  if (ways.has('command') && own) out.push({ setting: 'charge.command', program: own, users: ['charge.ways command'] });
  return out;
}

function programOf(command: string | undefined): string | undefined {
  return command?.split(/\s+/).find(Boolean);
}

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

/** One line per hub tool the settings call on; none when they call on none. */
export function hubToolItems(settings: HubToolSettings, env: NodeJS.ProcessEnv): CheckItem[] {
  return needs(settings).map(({ setting, program, users }) => {
    const where = locate(program, env.PATH);
    const who = users.join(', ');
    if ('found' in where) return { status: 'ok', finding: `hub tool ${program} (${setting}, for ${who}): ${where.found}` };
    const install = program.split('/').pop() === 'uhubctl' ? 'install uhubctl (`apt install uhubctl`) or ' : '';
    return {
      status: 'fail',
      finding: `hub tool ${program} (${setting}, for ${who}): ${where.missing}`,
      advice: `${install}set ${setting} to a program this host can run (a full path, or a name on the agent's PATH); until then no hub port is switched`,
    };
  });
}
