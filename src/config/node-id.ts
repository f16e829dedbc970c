import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { ConfigError } from './errors.js';
import { parseNodeIdFile } from './node-id-text.js';
import type { Settings } from './schema.js';

export function stateDirOf(settings: Settings, env: NodeJS.ProcessEnv = process.env): string {
  // systemd's StateDirectory= sets $STATE_DIRECTORY (possibly a colon-separated list).
  return settings.stateDir ?? env.STATE_DIRECTORY?.split(':')[0] ?? join(homedir(), '.local', 'state', 'device-agent');
}

const SETTING = 'stateDir (DEVICE_AGENT_STATE_DIR)';

/**
 * The node id: configured, else the one kept in the state directory, else a
 * new one written there, so that it survives restarts. A kept file that is
 * empty or all NUL bytes (a power loss right after it was first written) gets
 * a new id, with a warning; one holding something the agent did not write is
 * a configuration error naming the file.
 */
export function resolveNodeId(settings: Settings, env: NodeJS.ProcessEnv = process.env, logger?: Logger): string {
  if (settings.nodeId) return settings.nodeId;
  const dir = stateDirOf(settings, env);
  const file = join(dir, 'node-id');
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new ConfigError(SETTING, `cannot read ${file}: ${(err as Error).message}`);
    }
  }
  if (text !== undefined) {
    const kept = parseNodeIdFile(text);
    if (kept.kind === 'id') return kept.id;
    if (kept.kind === 'foreign') {
      throw new ConfigError(
        SETTING,
        `${file} is not a node id the agent wrote: it ${kept.problem}. Put this host's id back in it (one line), ` +
          'or set DEVICE_AGENT_NODE_ID, or delete the file to get a new id (the cloud then sees a new host)',
      );
    }
  }
  const id = randomUUID();
  try {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    // Written, flushed, then renamed, and the directory flushed: without the
    // flushes a power loss soon after can leave an empty or zeroed file.
    const fd = openSync(`${file}.tmp`, 'w', 0o640);
    try {
      writeFileSync(fd, id + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(`${file}.tmp`, file);
    syncDir(dir);
  } catch (err) {
    throw new ConfigError(
      SETTING,
      `cannot keep the node id in ${dir}: ${(err as Error).message}; set DEVICE_AGENT_NODE_ID or a writable DEVICE_AGENT_STATE_DIR`,
    );
  }
  if (text !== undefined) {
    logger?.warn(
      { file, nodeId: id },
      `${file} was empty or only NUL bytes (what a power loss soon after it was written leaves); a new node id was made: ${id}. ` +
        'If the cloud knew this host under another id, set DEVICE_AGENT_NODE_ID to that one',
    );
  }
  return id;
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
