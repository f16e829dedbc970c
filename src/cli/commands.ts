// The commands, their flags, the variables each depends on and their exit
// codes: one table that the parser, the help and the exit codes all read.
import { schema } from '../config/schema.js';
import { PHONE_LEVELS } from '../doctor/checklist.js';
import type { OtherVariableName } from '../config/variables.js';
import { platformVariables, type PlatformVariableName } from '../agent/platforms.js';

export type CommandName = 'run' | 'once' | 'list' | 'doctor' | 'quarantine' | 'incidents';
type SettingKey = keyof typeof schema;

/** The exit codes every command follows; a command uses the ones its table names. */
export const EXIT = {
  ok: 0,
  /** once: not delivered, or a device source did not answer (nothing sent); list: a device source (the adb server) did not answer; doctor: a check failed; run: an unexpected failure. */
  failed: 1,
  /** A usage or configuration error: restarting cannot fix it (the unit's RestartPreventExitStatus=2). */
  config: 2,
  /** once: the cloud stored the report but refused some devices (failedDevices). */
  failedDevices: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * `once`'s try at the cloud: one attempt of at most this long, so that an unreachable cloud (refused, no such host, no
 * answer) is said within seconds, exit 1. Retrying is the daemon's business (its planner's one backoff).
 */
export const ONCE_CLOUD_SECONDS = 8;

export interface FlagSpec {
  /** Without the dashes: "dry-run". */
  name: string;
  short?: string;
  /** The value's placeholder, for flags that take one. */
  value?: string;
  /** The values it accepts, from the schema. */
  oneOf?: readonly string[];
  /** The setting it overrides. */
  setting?: SettingKey;
  help: string;
}

export interface CommandSpec {
  usage: string;
  summary: string;
  /** What it does, for its own help. */
  about: string;
  flags: readonly FlagSpec[];
  /** The settings it depends on, most important first (it reads all of them). */
  settings: readonly SettingKey[];
  other: readonly (OtherVariableName | PlatformVariableName)[];
  exits: Readonly<Partial<Record<ExitCode, string>>>;
  /** The words it takes after its name (`quarantine release SERIAL`), at least and at most; none: it takes none. */
  operands?: { min: number; max: number; usage: string };
}

const configFlag: FlagSpec = { name: 'config', value: 'PATH', help: 'JSON settings file, over config/default.json; variables win over it' };
const logLevelFlag: FlagSpec = { name: 'log-level', value: 'LEVEL', oneOf: schema.logLevel.oneOf, setting: 'logLevel', help: 'the lowest level logged' };
const logFormatFlag: FlagSpec = {
  name: 'log-format',
  value: 'FORMAT',
  oneOf: schema.logFormat.oneOf,
  setting: 'logFormat',
  help: 'auto is readable lines on a terminal, JSON otherwise',
};
export const helpFlag: FlagSpec = { name: 'help', short: 'h', help: 'this help' };
export const versionFlag: FlagSpec = { name: 'version', short: 'v', help: 'the version, and the Node.js that runs it' };
const common = [configFlag, logLevelFlag, logFormatFlag, helpFlag];

// The cloud's settings, and the node id a report goes under and where it is kept.
const cloud: SettingKey[] = ['baseUrl', 'username', 'apiKey', 'apiKeyFile', 'nodeId', 'stateDir'];
// How requests reach the cloud: docs/install/proxy.md.
const network: SettingKey[] = ['httpsProxy', 'noProxy', 'caFile'];
// The platforms' services: their own variables (adb's), then usbmuxd's.
const adb: Array<OtherVariableName | PlatformVariableName> = [
  ...(Object.keys(platformVariables.variables) as PlatformVariableName[]),
  'USBMUXD_SOCKET_ADDRESS',
];
const configError = 'a usage or configuration error (every bad setting is named)';

export const COMMANDS: Readonly<Record<CommandName, CommandSpec>> = {
  run: {
    usage: 'device-agent run [options]',
    summary: 'the daemon: report on the schedule and within 2 s of a device change',
    about:
      'Runs until SIGTERM or SIGINT: reports at start, on the schedule (plus jitter), within 2 s of a device change, ' +
      'and when SIGHUP asks. Logs are JSON lines on stdout (journald, docker logs), readable lines on a terminal.',
    flags: common,
    settings: [
      ...cloud,
      'schedule',
      'jitterSeconds',
      'statusListen',
      'statusWebConfigFile',
      'statusHosts',
      'networkDevices',
      'adbServerSocket',
      'ios',
      'shutdownTimeoutSeconds',
      ...network,
    ],
    other: [...adb, 'CREDENTIALS_DIRECTORY', 'STATE_DIRECTORY'],
    exits: { 0: 'stopped by SIGTERM or SIGINT', 1: 'an unexpected failure', 2: configError },
  },
  once: {
    usage: 'device-agent once [--dry-run] [options]',
    summary: 'collect one inventory and send it (PUT /devices), then exit',
    about: `Collects one inventory of every device and the host, sends it to the cloud (one attempt, of at most ${ONCE_CLOUD_SECONDS} s) and exits. Logs go to stderr.`,
    flags: [{ name: 'dry-run', help: 'print the PUT /devices body on stdout and send nothing' }, ...common],
    settings: [...cloud, 'adbServerSocket', 'ios', 'probeTimeoutSeconds', 'requestTimeoutSeconds', ...network],
    other: [...adb, 'CREDENTIALS_DIRECTORY', 'STATE_DIRECTORY'],
    exits: {
      0: 'the cloud stored the report (--dry-run: the body was printed)',
      1: 'not delivered, a device source did not answer (no adb server), or the daemon runs: nothing sent',
      2: configError,
      3: 'the cloud refused some devices (failedDevices), each logged',
    },
  },
  list: {
    usage: 'device-agent list [--json] [options]',
    summary: 'a table of the devices, as the running agent knows them; sends nothing',
    about:
      'Prints one row per device for people (colour on a terminal), with a line under the table for each device with something to say, or ' +
      'JSON rows with --json: as the agent running on this host knows them now (the rows of its report, /metrics and status page), else ' +
      'from one inventory of its own. On a terminal, stderr says what it waits for. Sends nothing.',
    flags: [{ name: 'json', help: 'print the rows as JSON' }, ...common],
    settings: ['adbServerSocket', 'ios', 'probeTimeoutSeconds', 'probeConcurrency', 'hiddenDevices', 'stateDir'],
    other: [...adb, 'NO_COLOR', 'TERM'],
    exits: { 0: 'the devices were listed', 1: 'a device source did not answer (no adb server): the list is not the whole lab', 2: configError },
  },
  doctor: {
    usage: 'device-agent doctor [--phones LEVEL] [--json] [options]',
    summary: 'check the configuration, adb, the devices and the cloud',
    about:
      'Prints a checklist: the configuration, the node id, the adb server, each device with advice, usbmuxd and each iPhone, the cloud credentials and the clock. ' +
      'What stops this host from reporting fails; a phone its source cannot use (unauthorized, offline, not paired) warns, unless --phones fail; its battery, wear and readiness warn either way.',
    flags: [
      {
        name: 'phones',
        value: 'LEVEL',
        oneOf: PHONE_LEVELS,
        help: "what a phone's problem (unauthorized, offline, no permissions) does: warn (the default), or fail the doctor",
      },
      { name: 'json', help: 'print the checks as JSON: each status, finding and advice, the counts and the exit code' },
      ...common,
    ],
    settings: [...cloud, 'adbServerSocket', 'ios', 'usbmuxdSocketAddress', 'probeTimeoutSeconds', 'statusListen', 'statusWebConfigFile', ...network],
    other: [...adb, 'CREDENTIALS_DIRECTORY', 'STATE_DIRECTORY', 'NO_COLOR', 'TERM'],
    exits: {
      0: "nothing failed (warnings allowed; a phone's problem warns unless --phones fail)",
      1: "a check of the host failed (adb, cloud, credentials, state...), or a phone's with --phones fail",
      2: 'a configuration error (a setting the other commands would refuse)',
    },
  },
  quarantine: {
    usage: 'device-agent quarantine list [--json] | device-agent quarantine release SERIAL [options]',
    summary: 'list the phones taken out of service, or put one back now',
    about:
      'list: the phones quarantined for failing again and again, with why, since and until when. release SERIAL (its adb serial or udid): ' +
      "back in service with the daemon's next report, through a request file in the state directory the running daemon takes within a second " +
      "(run it as root, or as a user of the agent's group); with the daemon stopped, it is taken when it starts.",
    flags: [{ name: 'json', help: 'print the phones quarantined as JSON' }, ...common],
    settings: ['stateDir'],
    other: ['STATE_DIRECTORY'],
    exits: {
      0: 'listed; or released (the daemon took the request, or will when it starts)',
      1: 'not quarantined; the request could not be left; the daemon did not take it',
      2: configError,
    },
    operands: { min: 1, max: 2, usage: 'list, or release SERIAL' },
  },
  incidents: {
    usage: 'device-agent incidents [SERIAL] [--json] [options]',
    summary: "list the incidents kept in the state directory, or show one phone's",
    about:
      "Each incident (a quarantine, a call for a person, a recovery that failed) kept the phone's recent history: its source's word on it, " +
      "the kernel's lines about its port, readiness drift, actions and outcomes, battery and temperature, the cloud's answers. Without SERIAL: " +
      "one line per incident, oldest first; with it (adb serial or udid): that phone's, each with its history. Works with the daemon running.",
    flags: [{ name: 'json', help: 'print the incidents as JSON, each with its history when SERIAL is given' }, ...common],
    settings: ['stateDir'],
    other: ['STATE_DIRECTORY'],
    exits: { 0: 'listed (none is not an error)', 1: 'the incidents folder cannot be read', 2: configError },
    operands: { min: 0, max: 1, usage: '[SERIAL]' },
  },
};

export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

export function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

/** Every flag any command takes, once each. */
export const ALL_FLAGS = [...new Map([...Object.values(COMMANDS).flatMap((spec) => spec.flags), versionFlag].map((f) => [f.name, f])).values()];
