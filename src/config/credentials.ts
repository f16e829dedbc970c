import { readFileSync, statSync } from 'node:fs';
import { keyFileExposure } from './file-modes.js';
import { join } from 'node:path';
import { ConfigError, gatherConfigErrors } from './errors.js';
import type { Settings } from './schema.js';

export interface Credentials {
  username: string;
  apiKey: string;
  /** Where the key came from, for log lines: never the key itself. */
  source: string;
  /** The key file is readable by other users: said once at start, with the fix. */
  exposed?: string;
}

/** The API key from DEVICE_AGENT_API_KEY (or apiKey), DEVICE_AGENT_API_KEY_FILE (or apiKeyFile), then the credential `api-key`. */
export function resolveCredentials(settings: Settings, env = process.env) {
  let key: Omit<Credentials, 'username'> | undefined;
  gatherConfigErrors([
    () => {
      if (!settings.username) {
        throw new ConfigError('username (DEVICE_AGENT_USERNAME)', 'is required to report to the cloud: the username or email of the account');
      }
    },
    () => {
      key = apiKeyOf(settings, env);
    },
  ]);
  return { username: settings.username, ...key! };
}

function apiKeyOf(settings: Settings, env: NodeJS.ProcessEnv): Omit<Credentials, 'username'> {
  if (settings.apiKey) return { apiKey: settings.apiKey.trim(), source: 'DEVICE_AGENT_API_KEY' };
  if (settings.apiKeyFile) {
    const apiKey = readKey(settings.apiKeyFile, 'apiKeyFile (DEVICE_AGENT_API_KEY_FILE)');
    const exposed = exposureOf(settings.apiKeyFile);
    return { apiKey, source: settings.apiKeyFile, ...(exposed && { exposed }) };
  }
  if (env.CREDENTIALS_DIRECTORY) {
    // Its copy is per run (/run/credentials/UNIT/): the file it came from is what an operator knows, if the loader says.
    const path = join(env.CREDENTIALS_DIRECTORY, 'api-key');
    const source = env.DEVICE_AGENT_API_KEY_SOURCE || path;
    return { apiKey: readKey(path, 'the api-key credential ($CREDENTIALS_DIRECTORY/api-key)', source), source };
  }
  throw new ConfigError(
    'apiKey (DEVICE_AGENT_API_KEY)',
    'no API key: set DEVICE_AGENT_API_KEY, DEVICE_AGENT_API_KEY_FILE, or a systemd credential named api-key',
  );
}

function readKey(path: string, key: string, source = path) {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(key, `cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const value = text.trim();
  if (!value) throw new ConfigError(key, `${source} is empty`);
  return value;
}

/** Read already, so stat only fails in a race: then nothing is said. */
function exposureOf(path: string) {
  const egid = process.getegid?.();
  if (egid === undefined) return undefined;
  try {
    return keyFileExposure(path, statSync(path), egid);
  } catch {
    return undefined;
  }
}
