// The phones' wear histories kept in the state directory across restarts, by
// udid (a battery fades over months; a forecast needs them). Written
// atomically (src/config/state-file.ts); a file that cannot be read as one the
// agent wrote is set aside with one line, and the histories start empty.
import type { Logger } from '../../log/logger.js';
import { StateFile } from '../../config/state-file.js';
import { historyFrom, KEPT_DAYS, type DaySample } from './history.js';
import { jsonObject } from '../../util/json-object.js';

export const WEAR_FILE = 'wear-history.json';
/** Phones kept at most; the least recently seen go first. */
export const MAX_PHONES = 512;

export type Histories = Map<string, DaySample[]>;

export class WearFile extends StateFile<Histories> {
  constructor(file: string, logger: Logger) {
    super(
      file,
      {
        what: 'the wear history',
        // 512 phones x 120 days of a few figures: well under this.
        maxBytes: 16 * 1024 * 1024,
        parse: (text) => {
          const phones = jsonObject(text)?.phones;
          if (typeof phones !== 'object' || phones === null || Array.isArray(phones)) return undefined;
          // A hand-edited file keeps the phones whose history is still the agent's; one line names what was dropped.
          const out: Histories = new Map();
          const dropped: string[] = [];
          for (const [udid, h] of Object.entries(phones)) {
            const history = historyFrom(h);
            if (history) out.set(udid, history);
            else dropped.push(udid);
          }
          if (dropped.length)
            logger.warn(
              { file, dropped: dropped.length },
              `the wear history ${file} holds ${dropped.length} phone(s) whose history is not one the agent wrote; their forecasts start from no history (the others are kept)`,
            );
          return out;
        },
        text: (histories) => `${JSON.stringify({ phones: Object.fromEntries(histories) })}\n`,
        lost: 'forecasts start from no history',
        unsaved: 'it is kept in memory and tried again',
      },
      logger,
    );
  }
}

/**
 * Bounds the histories in place: a phone whose newest day is past the horizon (KEPT_DAYS before `today`: nothing of it
 * is read any more) is dropped, then at most MAX_PHONES are kept, the phones whose last day is the oldest dropped first.
 */
export function bound(histories: Histories, today: number) {
  const newest = (h: readonly DaySample[]) => h.at(-1)?.day ?? -Infinity;
  const byAge = [...histories].sort((a, b) => newest(a[1]) - newest(b[1]));
  for (const [i, [udid, h]] of byAge.entries()) if (i < byAge.length - MAX_PHONES || newest(h) <= today - KEPT_DAYS) histories.delete(udid);
}
