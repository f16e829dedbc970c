import { dirname } from 'node:path';
import { limited } from './limited.js';
import type { Logger } from './logger.js';

// A full, over-quota or read-only state directory fails every writer of it at once: the reported device set, the status
// endpoint's state, the hub ports held off (issue 42). The directory's trouble is one warning, said by whichever writer
// meets it first; each writer says at info what it cannot keep. And in words that stay the same from one attempt to the
// next: Node's message names the step that failed and the writer's random temporary file, so a line deduplicated on it
// could come again with every report. The agent's state files share one StateDirTrouble, one per process
// (src/config/state-file.ts).

const WORDS: Readonly<Record<string, string>> = {
  ENOSPC: 'the file system is full (ENOSPC)',
  EDQUOT: "the agent's user is over its disk quota (EDQUOT)",
  EROFS: 'the file system is read-only (EROFS)',
};

const ADVICE: Readonly<Record<string, string>> = {
  ENOSPC: 'free space on its file system',
  EDQUOT: "free space, or raise the quota of the agent's user",
  EROFS: 'remount it read-write, or set DEVICE_AGENT_STATE_DIR to a writable directory',
};

const codeOf = (err: unknown) => (err as NodeJS.ErrnoException | undefined)?.code;

/** What a failed write of a state file met, in words that do not change between attempts. */
export function stateWriteProblem(err: unknown) {
  const code = codeOf(err);
  return (code !== undefined && WORDS[code]) || (err as Error).message;
}

/** The state directory's troubles, said once across the writers that share it. */
export class StateDirTrouble {
  /** Directory and code of each trouble said and not gone since. */
  private readonly said = new Set<string>();

  /**
   * Says that a state file could not be written: `line` is the writer's own (what it cannot keep and what that costs),
   * and is not said again while it stays `lastSaid`. Returns the line, for the writer to keep.
   */
  writeFailed(logger: Logger, file: string, err: unknown, line: string, lastSaid: string | undefined) {
    if (line === lastSaid) return line;
    const code = codeOf(err);
    if (code === undefined || !WORDS[code]) {
      limited(logger).warn('state-dir-problem', { file }, line);
      return line;
    }
    const dir = dirname(file);
    const key = `${dir}\n${code}`;
    if (!this.said.has(key)) {
      this.said.add(key);
      limited(logger).warn(
        'state-dir-problem',
        { stateDir: dir, code },
        `the state directory ${dir}: ${WORDS[code]}. The agent goes on reporting, but keeps nothing there until this is fixed: ` +
          `${ADVICE[code]}. A line says when its files are written again`,
      );
    }
    logger.info({ file }, line);
    return line;
  }

  /** A write to the file's directory went through: a trouble met again later is said again. */
  works(file: string) {
    const prefix = `${dirname(file)}\n`;
    for (const key of this.said) if (key.startsWith(prefix)) this.said.delete(key);
  }
}
