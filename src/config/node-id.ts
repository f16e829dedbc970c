import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './errors.js';
import type { Settings } from './schema.js';

export function stateDirOf(settings: Settings, env: NodeJS.ProcessEnv = process.env): string {
  // systemd's StateDirectory= sets $STATE_DIRECTORY (possibly a colon-separated list).
  return settings.stateDir ?? env.STATE_DIRECTORY?.split(':')[0] ?? join(homedir(), '.local', 'state', 'device-agent');
}

/**
 * The node id: configured, else the one kept in the state directory, else a
 * new one written there, so that it survives restarts.
 */
export function resolveNodeId(settings: Settings, env: NodeJS.ProcessEnv = process.env): string {
  if (settings.nodeId) return settings.nodeId;
  const dir = stateDirOf(settings, env);
  const file = join(dir, 'node-id');
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept) return kept;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError('stateDir (DEVICE_AGENT_STATE_DIR)', `cannot read ${file}: ${(err as Error).message}`);
    }
  }
  const id = randomUUID();
  try {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    // Written then renamed, so a crash never leaves a half-written id.
    writeFileSync(`${file}.tmp`, id + '\n', { mode: 0o640 });
    renameSync(`${file}.tmp`, file);
  } catch (err) {
    throw new ConfigError('stateDir (DEVICE_AGENT_STATE_DIR)', `cannot keep the node id in ${dir}: ${(err as Error).message}; set DEVICE_AGENT_NODE_ID or a writable DEVICE_AGENT_STATE_DIR`);
  }
  return id;
}
