// The help texts, rendered from the command table, the schema and the
// defaults: `device-agent help`, `help COMMAND` and `COMMAND --help`. Pure.
import { defaultText, plain } from '../config/reference.js';
import { envName, schema } from '../config/schema.js';
import { otherVariables } from '../config/variables.js';
import { platformNames, platformVariables } from '../agent/platforms.js';
import { COMMAND_NAMES, COMMANDS, EXIT, versionFlag, type CommandName, type FlagSpec } from './commands.js';

export interface HelpContext {
  version: string;
  /** The defaults by key (loadDefaults). */
  defaults: ReadonlyMap<string, unknown>;
  /** Where the settings reference is on this host. */
  reference: string;
}

const WIDTH = 100;

export function globalHelp(ctx: HelpContext) {
  const commands = [
    ...COMMAND_NAMES.map((name) => [name, COMMANDS[name].summary] as const),
    ['help', 'this help; help COMMAND: its flags, the variables it reads, defaults and exit codes'] as const,
    ['version', 'the version and the Node.js that runs it (as --version)'] as const,
  ];
  const commonFlags = COMMANDS.run.flags.filter((f) => COMMAND_NAMES.every((c) => COMMANDS[c].flags.includes(f)));
  const only = COMMAND_NAMES.flatMap((c) => COMMANDS[c].flags.filter((f) => !commonFlags.includes(f)).map((f) => ({ ...f, help: `(${c}) ${f.help}` })));
  return [
    `device-agent ${ctx.version}: reports the ${platformNames.flatMap((n) => n.phones ?? []).join(' and ')} of this host to the device-testing cloud`,
    '',
    'Usage: device-agent COMMAND [options]',
    '',
    'Commands:',
    ...columns(commands),
    '',
    'Options:',
    ...columns([...only, ...commonFlags, versionFlag].map((f) => [flagLabel(f), flagText(f, ctx)])),
    '',
    'Exit codes:',
    ...exitTable(),
    '',
    ...wrap(
      'Settings come from their defaults, then --config PATH, then DEVICE_AGENT_* variables, later ones winning; ' +
        'a variable is DEVICE_AGENT_ + the key in UPPER_SNAKE case (jitterSeconds: DEVICE_AGENT_JITTER_SECONDS). ' +
        `Every setting, its variable, default and range: ${ctx.reference}`,
      '',
    ),
    '',
  ].join('\n');
}

export function commandHelp(name: CommandName, ctx: HelpContext) {
  const spec = COMMANDS[name];
  const settings = spec.settings.map((key): [string, string] => [envName(key), plain(defaultText(schema[key], ctx.defaults.get(key)))]);
  const others = spec.other.map((other): [string, string] => [other, plain({ ...platformVariables.variables, ...otherVariables }[other].help)]);
  return [
    `device-agent ${name}: ${spec.summary}`,
    '',
    `Usage: ${spec.usage}`,
    '',
    ...wrap(spec.about, ''),
    '',
    'Flags:',
    ...columns(spec.flags.map((f) => [flagLabel(f), flagText(f, ctx)])),
    '',
    'Settings it depends on, by variable (default):',
    ...columns(settings),
    ...wrap(`Every setting, its variable, default and range: ${ctx.reference}`, '  '),
    '',
    'Other variables it reads:',
    ...columns(others),
    '',
    'Exit codes:',
    ...columns(Object.entries(spec.exits)),
    '',
  ].join('\n');
}

/** One line per exit code, naming what it means for each command that uses it. */
function exitTable() {
  return columns(
    Object.values(EXIT).map((code) => {
      const users = COMMAND_NAMES.filter((c) => COMMANDS[c].exits[code] !== undefined);
      const text =
        users.length === COMMAND_NAMES.length && code === EXIT.config
          ? 'every command: a usage or configuration error'
          : users.map((c) => `${c}: ${COMMANDS[c].exits[code]}`).join('; ');
      return [String(code), text] as const;
    }),
  );
}

function flagLabel(flag: FlagSpec) {
  const long = `--${flag.name}${flag.value ? ` ${flag.value}` : ''}`;
  return flag.short ? `-${flag.short}, ${long}` : long;
}

function flagText(flag: FlagSpec, ctx: HelpContext) {
  if (!flag.oneOf) return flag.help;
  const fallback = flag.setting ? plain(defaultText(schema[flag.setting], ctx.defaults.get(flag.setting))) : undefined;
  const values = `${flag.oneOf.slice(0, -1).join(', ')} or ${flag.oneOf.at(-1)}`;
  return `${values}${fallback ? ` (else ${envName(flag.setting!)}, default ${fallback})` : ''}: ${flag.help}`;
}

/** Two columns, the second wrapped under itself. */
function columns(rows: ReadonlyArray<readonly [string, string]>) {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.flatMap(([left, right]) => {
    const lines = wrap(right, ' '.repeat(2 + width));
    lines[0] = `  ${left.padEnd(width)}${lines[0]!.trimStart()}`;
    return lines;
  });
}

function wrap(text: string, indent: string) {
  const lines: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.trim() && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = indent;
    }
    line += (line.trim() ? ' ' : '') + word;
  }
  lines.push(line);
  return lines;
}
