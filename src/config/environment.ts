// Which DEVICE_AGENT_* variables give settings, and which are typos or old names: read from the environment without
// I/O, every finding kept (nothing passes silently, nothing stops at the first).
import { closest, didYouMean } from './suggest.js';
import { envName, formerEnvName, MOVED_SETTINGS, schema } from './schema.js';
import { otherVariables } from './variables.js';
import { docPath } from '../util/package.js';

const PREFIX = 'DEVICE_AGENT_';

/** Something in the settings that works but is probably not what was meant. */
export interface ConfigWarning {
  /** The variable or key it is about. */
  name: string;
  message: string;
}

const byName = new Map(Object.keys(schema).map((key) => [envName(key), key]));
const byFormerName = new Map([
  ...Object.keys(schema).flatMap((key) => {
    const former = formerEnvName(key);
    return former ? [[former, key] as const] : [];
  }),
  ...Object.entries(MOVED_SETTINGS).map(([old, key]) => [envName(old), key] as const),
]);
const otherNames = new Set(Object.keys(otherVariables));

/** Every DEVICE_AGENT_* name the agent reads: the settings' variables and the few others. */
export function knownVariableNames() {
  return [...byName.keys(), ...[...otherNames].filter((n) => n.startsWith(PREFIX))];
}

/** The settings the variables give (empty ones count as unset), and a warning for each unknown or old name. */
export function readEnvironment(env: NodeJS.ProcessEnv) {
  /** Setting key -> the variable that gives it and its text. */
  const values = new Map<string, { name: string; raw: string }>();
  /** The DEVICE_AGENT_* variables set that the agent reads, sorted. */
  const known: string[] = [];
  const warnings: ConfigWarning[] = [];
  const set = Object.keys(env)
    .filter((name) => name.startsWith(PREFIX) && env[name])
    .sort();
  for (const name of set) {
    const raw = env[name]!;
    const key = byName.get(name);
    if (key !== undefined) {
      values.set(key, { name, raw });
      known.push(name);
      continue;
    }
    if (otherNames.has(name)) {
      known.push(name);
      continue;
    }
    const renamed = byFormerName.get(name);
    if (renamed === undefined) {
      const hint = didYouMean(closest(name, knownVariableNames(), PREFIX)) || `; every variable is listed in ${docPath('docs/reference/configuration.md')}`;
      warnings.push({ name, message: `${name} is set but device-agent has no such variable, so it is ignored${hint}` });
      continue;
    }
    known.push(name);
    const current = envName(renamed);
    if (set.includes(current)) {
      warnings.push({ name, message: `${name} is ignored: it is the old name of ${current}, which is set too; remove ${name}` });
    } else {
      values.set(renamed, { name, raw });
      warnings.push({ name, message: `${name} is the old name of ${current}: it still works for now, but rename it` });
    }
  }
  const tls = env.NODE_TLS_REJECT_UNAUTHORIZED;
  if (tls && tls !== '1') {
    warnings.push({
      name: 'NODE_TLS_REJECT_UNAUTHORIZED',
      message:
        `NODE_TLS_REJECT_UNAUTHORIZED=${JSON.stringify(tls).slice(0, 16)} is set but ignored: device-agent always checks the cloud's certificate. ` +
        'To trust a private CA, set caFile (DEVICE_AGENT_CA_FILE) or systemCa; remove the variable from agent.env, the env_file or the drop-in that sets it',
    });
  }
  return { values, known, warnings };
}
