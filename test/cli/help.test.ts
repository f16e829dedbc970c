import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, COMMANDS, EXIT } from '../../src/cli/commands.js';
import { commandHelp, globalHelp, type HelpContext } from '../../src/cli/help.js';
import { loadDefaults } from '../../src/config/load.js';
import { envName, schema } from '../../src/config/schema.js';

const ctx: HelpContext = { version: '9.9.9', defaults: loadDefaults(), reference: '/opt/device-agent/docs/reference/configuration.md' };

/** The lines of a help section, up to the next blank line. */
function section(text: string, title: string): string[] {
  const lines = text.split('\n');
  const at = lines.indexOf(title);
  expect(at, `no section ${title}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', at);
  return lines.slice(at + 1, end);
}

describe('commandHelp', () => {
  it.each(COMMAND_NAMES)('%s: its flags, the variables it reads with their defaults, and its exit codes', (name) => {
    const text = commandHelp(name, ctx);
    expect(text.split('\n')[0]).toBe(`device-agent ${name}: ${COMMANDS[name].summary}`);
    const flags = section(text, 'Flags:').join('\n');
    for (const flag of COMMANDS[name].flags) expect(flags).toContain(`--${flag.name}`);
    const variables = section(text, 'Settings it depends on, by variable (default):').join('\n');
    for (const key of COMMANDS[name].settings) expect(variables).toContain(envName(key));
    expect(text).toContain(ctx.reference);
    const exits = section(text, 'Exit codes:');
    expect(exits.map((l) => l.trim().split(/\s+/)[0])).toEqual(Object.keys(COMMANDS[name].exits));
  });

  it('once: --dry-run, the defaults of config/default.json, and 3 for failedDevices', () => {
    const text = commandHelp('once', ctx);
    expect(text).toMatch(/^ {2}--dry-run +print the PUT \/devices body on stdout and send nothing$/m);
    expect(text).toMatch(/^ {2}DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS +30$/m);
    expect(text).toMatch(/^ {2}DEVICE_AGENT_BASE_URL +none: required to send/m);
    expect(text).toMatch(/^ {2}3 +the cloud refused some devices/m);
    expect(text).not.toContain('--json');
  });

  it('the commands that talk to the cloud show how requests reach it: the proxy and the CA file', () => {
    for (const name of ['once', 'run', 'doctor'] as const) {
      const text = commandHelp(name, ctx);
      expect(text, name).toMatch(/^ {2}DEVICE_AGENT_HTTPS_PROXY +https_proxy, else HTTPS_PROXY, else none \(direct\)$/m);
      expect(text, name).toMatch(/^ {2}DEVICE_AGENT_CA_FILE /m);
    }
    expect(commandHelp('list', ctx)).not.toContain('PROXY');
  });

  it('lists the log levels and formats the schema takes, every one of them', () => {
    const text = commandHelp('run', ctx).replace(/\n +/g, ' ');
    expect(text).toContain(`${schema.logLevel.oneOf.slice(0, -1).join(', ')} or ${schema.logLevel.oneOf.at(-1)}`);
    expect(schema.logLevel.oneOf).toHaveLength(7);
    expect(text).toContain('auto, json or pretty');
  });
});

describe('globalHelp', () => {
  it('names every command, help, the exit-code table and where every setting is documented', () => {
    const text = globalHelp(ctx);
    expect(text.split('\n')[0]).toMatch(/^device-agent 9\.9\.9: /);
    const commands = section(text, 'Commands:').map((l) => l.trim().split(/\s+/)[0]);
    expect(commands).toEqual([...COMMAND_NAMES, 'help', 'version']);
    const exits = section(text, 'Exit codes:').join(' ').replace(/\s+/g, ' ');
    for (const code of Object.values(EXIT)) expect(exits).toContain(` ${code} `);
    expect(exits).toContain('2 every command: a usage or configuration error');
    expect(exits).toContain('list: a device source did not answer');
    expect(text.replace(/\s+/g, ' ')).toContain(ctx.reference);
  });

  it('keeps every line within 100 columns', () => {
    for (const text of [globalHelp(ctx), ...COMMAND_NAMES.map((n) => commandHelp(n, ctx))]) {
      expect(text.split('\n').filter((l) => l.length > 100)).toEqual([]);
    }
  });
});
