import type { Parts } from '../agent/build.js';
import { SourceUnreachableError } from '../platforms/source.js';

/**
 * The listing of a one-shot command (once, list): every source lists the
 * devices present now, once. A source whose service does not answer lists
 * none, with one error line saying why, what the command does without its
 * devices (`then`: what it means for the command, after the source's own
 * consequence) and what to do; returns whether every source answered, so
 * that absence can be taken as unplugged.
 */
export async function listOnce(parts: Parts, then = ''): Promise<boolean> {
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
export function stopSources(parts: Parts): void {
  for (const source of parts.sources) source.stop();
}
