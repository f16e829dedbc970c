import { resolveCredentials, type Credentials } from '../config/credentials.js';
import { ConfigError } from '../config/errors.js';
import { loadSettings } from '../config/load.js';
import type { Settings } from '../config/schema.js';
import { createLogger, type Logger, type Sink } from '../log/logger.js';
import { addSecret } from '../log/redact.js';
import { maskProxyCredentials } from '../cloud/network.js';
import type { CliArgs } from './args.js';

export interface Setup {
  settings: Settings;
  logger: Logger;
}

/** Settings with the command-line flags on top, and the logger they ask for. */
export function setup(args: CliArgs, env: NodeJS.ProcessEnv, logSink: Sink): Setup {
  const overrides: NodeJS.ProcessEnv = { ...env };
  if (args.logFormat) overrides.DEVICE_AGENT_LOG_FORMAT = args.logFormat;
  if (args.logLevel) overrides.DEVICE_AGENT_LOG_LEVEL = args.logLevel;
  const settings = loadSettings({ configPath: args.configPath, env: overrides });
  addSecret(settings.apiKey);
  maskProxyCredentials(settings);
  const pretty = settings.logFormat === 'auto' ? undefined : settings.logFormat === 'pretty';
  const logger = createLogger({ level: settings.logLevel, pretty, destination: logSink });
  return { settings, logger };
}

/** Credentials and base URL, needed only when something is sent. */
export function sendingCredentials(settings: Settings, env: NodeJS.ProcessEnv): Credentials {
  if (!settings.baseUrl) {
    throw new ConfigError('baseUrl (DEVICE_AGENT_BASE_URL)', 'is required to send reports: the cloud v1 root, e.g. https://cloud.example.com/v1');
  }
  const credentials = resolveCredentials(settings, env);
  addSecret(credentials.apiKey);
  addSecret(`${credentials.username}:${credentials.apiKey}`);
  return credentials;
}
