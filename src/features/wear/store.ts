// The phones' wear histories kept in the state directory across restarts, by
// udid (a battery fades over months; a forecast needs them). Written
// atomically (src/util/atomic-file.ts); a file that cannot be read as one the
// agent wrote is set aside with one line, and the histories start empty.
import type { Logger } from '../../log/logger.js';
import { readStateFile, writeAtomically } from '../../util/atomic-file.js';
import { historyFrom, KEPT_DAYS, type DaySample } from './history.js';
import { jsonObject } from '../../util/json-object.js';

export const WEAR_FILE = 'wear-history.json';
/** 512 phones x 120 days of a few figures: well under this. */
const MAX_BYTES = 16 * 1024 * 1024;
/** Phones kept at most; the least recently seen go first. */
export const MAX_PHONES = 512;

export type Histories = Map<string, DaySample[]>;

export class WearFile {
  constructor(
    readonly file: string,
    private readonly logger: Logger,
  ) {}

  load(): Histories {
    let text: string | undefined;
    try {
      text = readStateFile(this.file, MAX_BYTES);
    } catch (err) {
      this.logger.warn({ file: this.file, err }, `the wear history ${this.file} cannot be read (${(err as Error).message}); forecasts start from no history`);
      return new Map();
    }
    if (text === undefined) return new Map();
    const phones = jsonObject(text)?.phones;
    if (typeof phones !== 'object' || phones === null || Array.isArray(phones)) {
      this.logger.warn(
        { file: this.file },
        `the wear history ${this.file} is not one the agent wrote; forecasts start from no history (it is replaced at the next save)`,
      );
      return new Map();
    }
    // A hand-edited file keeps the phones whose history is still the agent's; one line names what was dropped.
    const out: Histories = new Map();
    const dropped: string[] = [];
    for (const [udid, h] of Object.entries(phones)) {
      const history = historyFrom(h);
      if (history) out.set(udid, history);
      else dropped.push(udid);
    }
    if (dropped.length)
      this.logger.warn(
        { file: this.file, dropped: dropped.length },
        `the wear history ${this.file} holds ${dropped.length} phone(s) whose history is not one the agent wrote; their forecasts start from no history (the others are kept)`,
      );
    return out;
  }

  /** Saves; a failure is one line, and the histories stay in memory for the next try. */
  save(histories: Histories): boolean {
    try {
      writeAtomically(this.file, `${JSON.stringify({ phones: Object.fromEntries(histories) })}\n`);
      return true;
    } catch (err) {
      this.logger.warn(
        { file: this.file, err },
        `the wear history could not be saved to ${this.file} (${(err as Error).message}); it is kept in memory and tried again`,
      );
      return false;
    }
  }
}

/**
 * Bounds the histories in place: a phone whose newest day is past the horizon (KEPT_DAYS before `today`: nothing of it
 * is read any more) is dropped, then at most MAX_PHONES are kept, the phones whose last day is the oldest dropped first.
 */
export function bound(histories: Histories, today: number): void {
  const newest = (h: readonly DaySample[]) => h.at(-1)?.day ?? -Infinity;
  for (const [udid, h] of histories) if (newest(h) <= today - KEPT_DAYS) histories.delete(udid);
  if (histories.size <= MAX_PHONES) return;
  const oldest = [...histories].sort((a, b) => newest(a[1]) - newest(b[1])).slice(0, histories.size - MAX_PHONES);
  for (const [udid] of oldest) histories.delete(udid);
}
