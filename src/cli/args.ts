// The command line: util.parseArgs splits it into tokens, and this reads them, so a mistake gets one line in our words
// with a suggestion (strict: false: an unknown flag is a token here, not a throw). Pure.
import { parseArgs } from 'node:util';
import { closest, didYouMean } from '../config/suggest.js';
import type { PhoneLevel } from '../doctor/checklist.js';
import { ALL_FLAGS, COMMAND_NAMES, COMMANDS, helpFlag, isCommand, versionFlag, type CommandName } from './commands.js';

export type Command = CommandName | 'help' | 'version';

export interface CliArgs {
  command: Command;
  /** help: the command asked about (`help once`, `once --help`). */
  helpFor?: CommandName;
  configPath?: string;
  dryRun: boolean;
  /** list: JSON rows instead of the table. */
  json?: boolean;
  logFormat?: string;
  logLevel?: string;
  /** doctor: what a phone's problem is (--phones). */
  phones?: PhoneLevel;
  /** The words after the command's name, for a command that takes some (`quarantine release SERIAL`). */
  operands?: string[];
}

/** A usage mistake; `command` names the help that shows the right usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    message: string,
    readonly command?: CommandName,
  ) {
    super(message);
  }
}

export function parseCli(argv: readonly string[]): CliArgs {
  const { tokens } = parseArgs({ args: [...argv], options: PARSER_OPTIONS, strict: false, allowPositionals: true, tokens: true });
  const positionals = tokens.flatMap((t) => (t.kind === 'positional' ? [t.value] : []));

  // Unknown flags first: a mistyped flag's value would otherwise read as a second command.
  const first = positionals[0];
  const named =
    first !== undefined && isCommand(first)
      ? first
      : first === 'help' && positionals[1] !== undefined && isCommand(positionals[1])
        ? positionals[1]
        : undefined;
  // `spelled` as typed: --dry-run, -h; the flag by the parser's name: the long name of a short one it declares.
  const given = tokens.flatMap((token) => {
    if (token.kind !== 'option') return [];
    const flag = ALL_FLAGS.find((f) => f.name === token.name);
    if (!flag) {
      const candidates = (named ? COMMANDS[named].flags : ALL_FLAGS).map((f) => `--${f.name}`);
      throw new UsageError(`unknown flag ${token.rawName}${didYouMean(closest(token.rawName, candidates, '--'))}`, named);
    }
    // "--config --dry-run": the parser takes the next word whatever it is; a flag there is no value.
    const value = token.inlineValue === false && token.value?.startsWith('-') ? undefined : token.value;
    return [{ flag, spelled: token.rawName, value }];
  });
  const helpGiven = given.some((g) => g.flag === helpFlag);

  // The command named: the one to run, or with `help`, the one asked about.
  let command: CommandName | undefined;
  if (first === 'help') {
    if (positionals.length > 2) throw new UsageError(`help takes one command, got: ${positionals.slice(1).join(' ')}`);
    // `help help` and `help version` are the whole help, as `help` is.
    if (!/^(help|version)?$/.test(positionals[1] ?? '')) command = commandNamed(positionals[1]!);
  } else if (first === 'version') {
    // As docker and kubectl take it: `version` is --version.
    if (positionals.length > 1) throw new UsageError(`version takes no command, got: ${positionals.join(' ')}`);
    if (!helpGiven) return { command: 'version', dryRun: false };
  } else if (first !== undefined) {
    command = commandNamed(first);
    const takes = COMMANDS[command].operands;
    const operands = positionals.length - 1;
    if (!takes && operands > 0) throw new UsageError(`one command at a time, got: ${positionals.join(' ')}`, command);
    // `quarantine --help` asks for the usage its missing words would point to.
    if (takes && (operands < takes.min || operands > takes.max) && !helpGiven)
      throw new UsageError(`${command} takes ${takes.usage}, got: ${positionals.slice(1).join(' ') || 'nothing'}`, command);
  }
  if (helpGiven || first === 'help') return { command: 'help', helpFor: command, dryRun: false };
  if (given.some((g) => g.flag === versionFlag)) return { command: 'version', dryRun: false };
  if (command === undefined) throw new UsageError(`a command is required: ${COMMAND_NAMES.join(', ')}`);

  const args: CliArgs = { command, dryRun: false, json: false, ...(COMMANDS[command].operands && { operands: positionals.slice(1) }) };
  for (const { flag, spelled, value } of given) {
    if (!COMMANDS[command].flags.some((f) => f.name === flag.name)) {
      const owners = COMMAND_NAMES.filter((c) => COMMANDS[c].flags.some((f) => f.name === flag.name));
      throw new UsageError(`${spelled} goes with ${owners.join(' or ')}, not ${command}`, command);
    }
    if (flag.value === undefined) {
      if (value !== undefined) throw new UsageError(`${spelled} takes no value`, command);
    } else {
      if (value === undefined || value === '') throw new UsageError(`${spelled} needs a value: --${flag.name} ${flag.value}`, command);
      if (flag.oneOf && !flag.oneOf.includes(value)) {
        throw new UsageError(`${spelled} ${value}: must be one of ${flag.oneOf.join(', ')}${didYouMean(closest(value, flag.oneOf))}`, command);
      }
    }
    // A value was checked against the flag's oneOf above (--phones).
    const field = FIELD_OF[flag.name];
    if (field) Object.assign(args, { [field]: value ?? true });
  }
  return args;
}

/** The field of CliArgs each flag sets: to its value, or true for a flag without one. */
const FIELD_OF: Record<string, keyof CliArgs> = {
  config: 'configPath',
  'dry-run': 'dryRun',
  json: 'json',
  'log-level': 'logLevel',
  'log-format': 'logFormat',
  phones: 'phones',
};

/** Every flag as util.parseArgs declares it: those with a value take the next word (or =value), the others none. */
const PARSER_OPTIONS = Object.fromEntries(
  ALL_FLAGS.map((f) => [f.name, { type: f.value === undefined ? 'boolean' : 'string', ...(f.short && { short: f.short }) }] as const),
);

function commandNamed(name: string) {
  if (isCommand(name)) return name;
  const hint = didYouMean(closest(name, [...COMMAND_NAMES, 'help', 'version'])) || `: use ${COMMAND_NAMES.join(', ')}, help or version`;
  throw new UsageError(`unknown command "${name}"${hint}`);
}
