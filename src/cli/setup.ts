import { resolveCredentials, type Credentials } from '../config/credentials.js';
import type { ConfigWarning } from '../config/environment.js';
import { ConfigError, ConfigErrors, gatherConfigErrors } from '../config/errors.js';
import { loadConfig, type LoadedConfig } from '../config/load.js';
import { stateDirOf } from '../config/node-id.js';
import { otherServiceStateDir, SERVICE_STATE_ADVICE } from '../config/service-state.js';
import type { Settings } from '../config/schema.js';
import { createLogger, type Logger, type LoggerOptions, type Sink } from '../log/logger.js';
import { addSecret } from '../log/redact.js';
import { maskProxyCredentials } from '../cloud/network.js';
import { checkServiceAddresses } from '../agent/platforms.js';
import type { CliArgs } from './args.js';

export interface Setup {
  settings: Settings;
  logger: Logger;
  /** Unknown and old variable names; logged already, except for doctor, which lists them. */
  warnings: readonly ConfigWarning[];
  /** The DEVICE_AGENT_* variables set that the agent reads. */
  variables: readonly string[];
  /** The cloud credentials, for the commands that send (run, once without --dry-run). */
  credentials?: Credentials;
}

/** Settings with the flags on top, and their logger; every configuration problem is thrown at once (`lenient`: doctor's). */
export function setup(args: CliArgs, env: NodeJS.ProcessEnv, logSink: Sink, lenient = false, hold?: LoggerOptions['hold']) {
  const overrides = new Map<string, unknown>();
  if (args.logFormat) overrides.set('logFormat', args.logFormat);
  if (args.logLevel) overrides.set('logLevel', args.logLevel);
  let loaded: LoadedConfig | undefined;
  let credentials: Credentials | undefined;
  const sends = args.command === 'run' || (args.command === 'once' && !args.dryRun);
  try {
    gatherConfigErrors([
      () => {
        loaded = loadConfig({ configPath: args.configPath, env, overrides });
      },
      () => {
        if (!lenient) checkServiceAddresses(env, loaded?.settings);
      },
      () => {
        if (sends && loaded) credentials = sendingCredentials(loaded.settings, env);
      },
    ]);
  } catch (err) {
    // A setting missing because its variable was misspelt: the warning is the answer, so it goes with the errors.
    if (err instanceof ConfigError && loaded?.warnings.length) throw new ConfigErrors(err.problems, loaded.warnings);
    throw err;
  }
  const { settings, warnings, variables } = loaded!;
  addSecret(settings.apiKey);
  maskProxyCredentials(settings);
  const pretty = settings.logFormat === 'auto' ? undefined : settings.logFormat === 'pretty';
  const logger = createLogger({ level: settings.logLevel, pretty, destination: logSink, env, hold });
  // The doctor's checklist names all of this.
  if (args.command !== 'doctor') {
    for (const w of warnings) logger.warn({ variable: w.name }, w.message);
    if (credentials?.exposed) logger.warn({ apiKeyFile: credentials.source }, credentials.exposed);
    // Which settings file and state directory a command read: one it was meant to read and did not (a command run by
    // hand beside an installed service) is otherwise silent.
    const stateDir = stateDirOf(settings, env);
    logger.info(
      (args.configPath
        ? `settings: the defaults, then ${args.configPath}, then ${variables.length} DEVICE_AGENT_* variables`
        : `settings: the defaults, then ${variables.length} DEVICE_AGENT_* variables (no settings file given with --config)`) + `; state directory ${stateDir}`,
    );
    // list and once run by hand beside the installed service: another state directory is another node id (the doctor
    // says it in its checklist).
    const service = args.command === 'list' || args.command === 'once' ? otherServiceStateDir(stateDir, Boolean(settings.nodeId)) : undefined;
    if (service) {
      logger.warn(
        { stateDir, serviceStateDir: service },
        `this run keeps its node id in ${stateDir}, the device-agent service on this host in ${service}: ` +
          `a report sent from here shows the phones under a second node; ${SERVICE_STATE_ADVICE}`,
      );
    }
  }
  return { settings, logger, warnings, variables, credentials };
}

/** Credentials and base URL, needed only when something is sent; every missing one is named. */
export function sendingCredentials(settings: Settings, env: NodeJS.ProcessEnv) {
  let credentials: Credentials | undefined;
  gatherConfigErrors([
    () => {
      if (!settings.baseUrl) {
        throw new ConfigError('baseUrl (DEVICE_AGENT_BASE_URL)', 'is required to send reports: the cloud v1 root, e.g. https://cloud.example.com/v1');
      }
    },
    () => {
      credentials = resolveCredentials(settings, env);
    },
  ]);
  addSecret(credentials!.apiKey);
  addSecret(`${credentials!.username}:${credentials!.apiKey}`);
  return credentials!;
}
