import type { Parts } from '../agent/build.js';
import { SourceUnreachableError } from '../platforms/source.js';

/**
 * The listing of a one-shot command: every source lists its devices once. One whose service does not answer lists none,
 * with one line saying why, what it means for the command (`then`) and what to do. Returns whether every source answered.
 */
export async function listOnce(parts: Parts, then = '') {
  const { sources, logger } = parts;
  const answered = await Promise.all(
    sources.map(async (source) => {
      try {
        await source.listOnce();
        return source.listed;
      } catch (err) {
        if (!(err instanceof SourceUnreachableError)) throw err;
        logger.error({ source: source.label }, `${err.message}. ${err.consequence}${then && ` ${then}`}`);
        return false;
      }
    }),
  );
  return answered.every(Boolean);
}

/** Stops what listOnce started (the iPhone watcher), so the command can exit. */
export function stopSources(parts: Parts) {
  for (const source of parts.sources) source.stop();
}
