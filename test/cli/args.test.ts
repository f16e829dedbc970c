import { describe, expect, it } from 'vitest';
import { parseCli, UsageError } from '../../src/cli/args.js';

function mistake(argv: string[]): UsageError {
  try {
    parseCli(argv);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error(`expected a UsageError for ${argv.join(' ')}`);
}

describe('parseCli', () => {
  it('reads each command with its flags, before or after it, as --flag value or --flag=value', () => {
    expect(parseCli(['once', '--dry-run'])).toEqual({ command: 'once', dryRun: true, json: false });
    expect(parseCli(['--config', '/etc/a.json', 'list', '--json', '--log-level=debug'])).toEqual({
      command: 'list',
      configPath: '/etc/a.json',
      dryRun: false,
      json: true,
      logLevel: 'debug',
    });
    expect(parseCli(['run', '--log-format', 'json'])).toMatchObject({ command: 'run', logFormat: 'json' });
    expect(parseCli(['doctor'])).toMatchObject({ command: 'doctor' });
    expect(parseCli(['doctor']).phones).toBeUndefined();
    expect(parseCli(['doctor', '--phones', 'fail'])).toMatchObject({ command: 'doctor', phones: 'fail' });
    expect(parseCli(['doctor', '--phones=warn'])).toMatchObject({ command: 'doctor', phones: 'warn' });
  });

  it('takes the words quarantine and incidents take after their name, and no more', () => {
    expect(parseCli(['quarantine', 'release', 'R58M12AB'])).toMatchObject({ command: 'quarantine', operands: ['release', 'R58M12AB'] });
    expect(parseCli(['quarantine', 'list', '--json'])).toMatchObject({ command: 'quarantine', operands: ['list'], json: true });
    expect(parseCli(['incidents'])).toMatchObject({ command: 'incidents', operands: [] });
    expect(parseCli(['incidents', 'R58M12AB', '--json'])).toMatchObject({ command: 'incidents', operands: ['R58M12AB'], json: true });
    expect(mistake(['quarantine']).message).toBe('quarantine takes list, or release SERIAL, got: nothing');
    // The line above points to `quarantine --help`, which must answer it.
    expect(parseCli(['quarantine', '--help'])).toEqual({ command: 'help', helpFor: 'quarantine', dryRun: false });
    expect(mistake(['incidents', 'A', 'B']).message).toBe('incidents takes [SERIAL], got: A B');
    expect(mistake(['list', 'A']).message).toBe('one command at a time, got: list A');
  });

  it('takes --phones only with doctor and only warn or fail', () => {
    expect(mistake(['doctor', '--phones', 'strict']).message).toMatch(/^--phones strict: must be one of warn, fail/);
    expect(mistake(['doctor', '--phones']).message).toBe('--phones needs a value: --phones LEVEL');
    expect(mistake(['once', '--phones', 'fail']).message).toBe('--phones goes with doctor, not once');
  });

  it('asks for help in every way people ask: --help, -h, help, help COMMAND, COMMAND --help', () => {
    expect(parseCli(['--help'])).toEqual({ command: 'help', helpFor: undefined, dryRun: false });
    expect(parseCli(['-h'])).toMatchObject({ command: 'help', helpFor: undefined });
    expect(parseCli(['help'])).toMatchObject({ command: 'help', helpFor: undefined });
    expect(parseCli(['help', 'once'])).toMatchObject({ command: 'help', helpFor: 'once' });
    // The README lists version beside the commands: its help is the whole help, as help's own is (it was "unknown command
    // \"version\"; did you mean version?").
    expect(parseCli(['help', 'version'])).toEqual({ command: 'help', helpFor: undefined, dryRun: false });
    expect(parseCli(['help', 'help'])).toEqual({ command: 'help', helpFor: undefined, dryRun: false });
    expect(parseCli(['once', '--help'])).toMatchObject({ command: 'help', helpFor: 'once' });
    expect(parseCli(['list', '-h'])).toMatchObject({ command: 'help', helpFor: 'list' });
    expect(parseCli(['-v'])).toMatchObject({ command: 'version' });
  });

  it("answers a mistyped flag with the one it resembles and the command's help", () => {
    const err = mistake(['once', '--dryrun']);
    expect(err.message).toBe('unknown flag --dryrun; did you mean --dry-run?');
    expect(err.command).toBe('once');
    expect(mistake(['list', '--jsno']).message).toBe('unknown flag --jsno; did you mean --json?');
    expect(mistake(['doctor', '--verbose']).message).toBe('unknown flag --verbose');
    // Its value is not taken for a second command.
    expect(mistake(['run', '--confg', 'x.json']).message).toBe('unknown flag --confg; did you mean --config?');
    expect(mistake(['--dryrun']).message).toBe('unknown flag --dryrun; did you mean --dry-run?');
  });

  it('answers a mistyped command with the one it resembles', () => {
    expect(mistake(['lsit']).message).toBe('unknown command "lsit"; did you mean list?');
    expect(mistake(['help', 'doctr']).message).toBe('unknown command "doctr"; did you mean doctor?');
    expect(mistake(['frobnicate']).message).toBe('unknown command "frobnicate": use run, once, list, doctor, quarantine, incidents, help or version');
  });

  it('takes `version` as --version, as docker and kubectl do, and points a mistyped one at it (issue 61)', () => {
    expect(parseCli(['version'])).toEqual({ command: 'version', dryRun: false });
    expect(parseCli(['version', '--help'])).toMatchObject({ command: 'help', helpFor: undefined });
    expect(mistake(['verison']).message).toBe('unknown command "verison"; did you mean version?');
    expect(mistake(['version', 'list']).message).toBe('version takes no command, got: version list');
  });

  it('reads the command line through util.parseArgs: grouped short flags and -- as a shell passes them', () => {
    expect(parseCli(['-hv'])).toMatchObject({ command: 'help' });
    expect(mistake(['once', '--', '--dry-run']).message).toBe('one command at a time, got: once --dry-run');
  });

  it('says which command a flag goes with', () => {
    expect(mistake(['list', '--dry-run']).message).toBe('--dry-run goes with once, not list');
    expect(mistake(['once', '--json']).message).toBe('--json goes with list or doctor or quarantine or incidents, not once');
    // Two commands' flags of one name, each with its own help: both take it.
    expect(parseCli(['doctor', '--json'])).toMatchObject({ command: 'doctor', json: true });
    expect(parseCli(['list', '--json'])).toMatchObject({ command: 'list', json: true });
  });

  it("checks values against the schema's lists", () => {
    expect(mistake(['once', '--log-level', 'loud']).message).toBe('--log-level loud: must be one of trace, debug, info, warn, error, fatal, silent');
    expect(mistake(['once', '--log-level=warning']).message).toBe(
      '--log-level warning: must be one of trace, debug, info, warn, error, fatal, silent; did you mean warn?',
    );
    expect(mistake(['run', '--log-format', 'text']).message).toMatch(/^--log-format text: must be one of auto, json, pretty/);
  });

  it('names a missing value, a value where none goes, and a missing or second command', () => {
    expect(mistake(['once', '--config']).message).toBe('--config needs a value: --config PATH');
    expect(mistake(['once', '--config', '--dry-run']).message).toBe('--config needs a value: --config PATH');
    expect(mistake(['once', '--dry-run=yes']).message).toBe('--dry-run takes no value');
    expect(mistake(['--config', 'a.json']).message).toBe('a command is required: run, once, list, doctor, quarantine, incidents');
    expect(mistake(['once', 'list']).message).toBe('one command at a time, got: once list');
  });
});
