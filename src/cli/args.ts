import { parseArgs } from 'node:util';

export type Command = 'run' | 'once' | 'list' | 'doctor' | 'help' | 'version';

export interface CliArgs {
  command: Command;
  configPath?: string;
  dryRun: boolean;
  /** list: JSON rows instead of the table. */
  json?: boolean;
  logFormat?: string;
  logLevel?: string;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const HELP = `device-agent: reports the Android devices attached to this host to the device-testing cloud

Usage:
  device-agent run [options]             run as a daemon: report on a schedule and on device changes
  device-agent once [--dry-run] [options]
                                         collect one inventory and send it (PUT /devices), then exit;
                                         with --dry-run print the request body on stdout instead of sending
  device-agent list [--json] [options]   collect one inventory and print a table of the devices (or JSON rows); sends nothing
  device-agent doctor [options]          check configuration, adb, devices and the cloud
  device-agent --help | --version

Options:
  --config PATH        JSON settings file (over config/default.json; DEVICE_AGENT_* variables win)
  --dry-run            (once) print the PUT /devices body, send nothing
  --json               (list) print the rows as JSON
  --log-format FORMAT  json | pretty | auto (default: pretty on a terminal)
  --log-level LEVEL    trace | debug | info | warn | error

Exit codes: once: 0 stored, 3 the cloud answered failedDevices, 1 not delivered, 2 usage or configuration error;
  doctor: 0 nothing failed (warnings allowed), 1 something failed, 2 configuration error.

Settings (each also DEVICE_AGENT_<NAME> in the environment; see docs/reference/configuration.md):
  DEVICE_AGENT_BASE_URL, DEVICE_AGENT_USERNAME, DEVICE_AGENT_API_KEY / DEVICE_AGENT_API_KEY_FILE /
  $CREDENTIALS_DIRECTORY/api-key, DEVICE_AGENT_NODE_ID, DEVICE_AGENT_STATE_DIR, DEVICE_AGENT_SCHEDULE,
  DEVICE_AGENT_JITTER_SECONDS, DEVICE_AGENT_STATUS_LISTEN. The adb server: ADB_SERVER_SOCKET=tcp:HOST:PORT,
  else ANDROID_ADB_SERVER_PORT, else tcp:localhost:5037. A proxy: HTTPS_PROXY, HTTP_PROXY and NO_PROXY as curl
  reads them (or DEVICE_AGENT_HTTPS_PROXY, ...); a private CA: DEVICE_AGENT_CA_FILE (docs/install/proxy.md).
`;

export function parseCli(argv: string[]): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        'log-format': { type: 'string' },
        'log-level': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help', dryRun: false };
  if (values.version) return { command: 'version', dryRun: false };
  if (positionals.length > 1) throw new UsageError(`one command at a time, got: ${positionals.join(' ')}`);
  const command = positionals[0];
  if (command === undefined) throw new UsageError('a command is required: run, once, list or doctor');
  if (command !== 'run' && command !== 'once' && command !== 'list' && command !== 'doctor') throw new UsageError(`unknown command "${command}": use run, once, list or doctor`);
  if (values['dry-run'] && command !== 'once') throw new UsageError('--dry-run goes with once');
  if (values.json && command !== 'list') throw new UsageError('--json goes with list');
  return {
    command,
    configPath: values.config,
    dryRun: values['dry-run'] ?? false,
    json: values.json ?? false,
    logFormat: values['log-format'],
    logLevel: values['log-level'],
  };
}
