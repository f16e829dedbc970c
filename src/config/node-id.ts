import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log/logger.js';
import { readStateFile, StateFileError, withStateLock, writeAtomically } from '../util/atomic-file.js';
import { ConfigError } from './errors.js';
import { parseNodeIdFile } from './node-id-text.js';
import type { Settings } from './schema.js';

export function stateDirOf(settings: Settings, env = process.env) {
  // systemd's StateDirectory= sets $STATE_DIRECTORY (possibly a colon-separated list).
  return settings.stateDir ?? env.STATE_DIRECTORY?.split(':')[0] ?? join(homedir(), '.local', 'state', 'device-agent');
}

const SETTING = 'stateDir (DEVICE_AGENT_STATE_DIR)';
/** Far more than an id: a bigger file is not read (its parse refuses anything past one line anyway). */
const MAX_NODE_ID_FILE_BYTES = 1024 * 1024;

/** The file systems' words for "no room": blocks or inodes (ENOSPC), or the user's quota (EDQUOT). */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** No node id is kept and none can be, for want of space: a wait, not a settings mistake, so the daemon waits rather than exit 2. */
export class NoSpaceForNodeId extends ConfigError {
  override readonly name = 'NoSpaceForNodeId';
  constructor(
    readonly dir: string,
    readonly code: string,
  ) {
    super(
      SETTING,
      `no node id is kept in ${dir} yet and none can be (${code}: ${code === 'EDQUOT' ? "the agent's user is over its disk quota" : 'the file system is full'}); ` +
        'nothing is reported until one is: a report under an id not kept would show the phones under a new host at every start. ' +
        `Free space in ${dir}, or set DEVICE_AGENT_NODE_ID`,
    );
  }
}

/**
 * The node id: configured, else the one kept in the state directory, else a new one written there. A kept file empty or
 * all NUL (power loss after the first write) gets a new id with a warning; one the agent did not write is a
 * configuration error naming the file. A kept id is read without writing, so a full or read-only directory stops
 * nothing; one that cannot be made for want of space is a NoSpaceForNodeId.
 */
export function resolveNodeId(settings: Settings, env = process.env, logger?: Logger) {
  if (settings.nodeId) return settings.nodeId;
  const dir = stateDirOf(settings, env);
  const file = join(dir, 'node-id');
  // Read without the lock: every write is a rename (all or nothing), and the lock file needs room the disk may lack.
  const kept = keptNodeId(file, false).id;
  if (kept !== undefined) return kept;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    // Made under the state directory's lock: a `once` beside a first-starting daemon must find the daemon's id, not make a
    // second one the cloud would take for another host.
    return withStateLock(dir, () => {
      const kept = keptNodeId(file, true);
      if (kept.id !== undefined) return kept.id;
      const id = randomUUID();
      // Flushed before and after the rename: else a power loss soon after can leave an empty or zeroed file. A write
      // that fails is the catch's below, as any failure here but a ConfigError.
      writeAtomically(file, id + '\n');
      if (kept.found) {
        logger?.warn(
          { file, nodeId: id },
          `${file} was empty or only NUL bytes (what a power loss soon after it was written leaves); a new node id was made: ${id}. ` +
            'If the cloud knew this host under another id, set DEVICE_AGENT_NODE_ID to that one',
        );
      }
      return id;
    });
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw notKept(dir, err);
  }
}

/**
 * The id kept in file, if any (`found`: a file was there, lost or not); one the agent did not write is a configuration
 * error. Read without the lock, a file that cannot be read is none (the locked read says why); a FIFO or a link in its
 * place is named whatever the disk's state.
 */
function keptNodeId(file: string, locked: boolean): { id?: string; found: boolean } {
  let text: string | undefined;
  try {
    text = readStateFile(file, MAX_NODE_ID_FILE_BYTES);
  } catch (err) {
    if (err instanceof StateFileError) throw new ConfigError(SETTING, err.message);
    if (locked) throw new ConfigError(SETTING, `cannot read ${file}: ${(err as Error).message}`);
    return { found: false };
  }
  if (text === undefined) return { found: false };
  const kept = parseNodeIdFile(text);
  if (kept.kind === 'foreign') {
    throw new ConfigError(
      SETTING,
      `${file} is not a node id the agent wrote: it ${kept.problem}. Put this host's id back in it (one line), ` +
        'or set DEVICE_AGENT_NODE_ID, or delete the file to get a new id (the cloud then sees a new host)',
    );
  }
  return { found: true, ...(kept.kind === 'id' && { id: kept.id }) };
}

function notKept(dir: string, err: unknown) {
  const code = (err as NodeJS.ErrnoException).code;
  if (code !== undefined && NO_SPACE.has(code)) return new NoSpaceForNodeId(dir, code);
  return new ConfigError(
    SETTING,
    `cannot keep the node id in ${dir}: ${(err as Error).message}; set DEVICE_AGENT_NODE_ID or a writable DEVICE_AGENT_STATE_DIR`,
  );
}
