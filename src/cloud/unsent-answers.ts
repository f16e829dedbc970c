// The failedDevices entries naming devices a report did not carry: one line per answer naming them, with their true
// count, not said again while the cloud repeats the same answer. A digest of each answer's (udid, message) set is kept,
// not the pairs: a bounded memory of pairs forgot most of a huge answer and counted them as new every report. Pure.

import { createHash } from 'node:crypto';
import { compareStrings } from '../util/compare.js';
import { BoundedSet } from '../util/bounded-set.js';
import type { FailedDevice } from './types.js';

/** Distinct answers remembered (64 characters each): a cloud alternating between a few answers says each once. */
const UNSENT_ANSWERS_KEPT = 1_000;

export class UnsentAnswers {
  private readonly said: BoundedSet<string>;

  constructor(kept = UNSENT_ANSWERS_KEPT) {
    this.said = new BoundedSet(kept);
  }

  /** The entries of this answer to log, one per udid (its first entry), or none when the same set was logged already. */
  toLog(unsent: readonly FailedDevice[]) {
    const byUdid = new Map<string, FailedDevice>();
    for (const f of unsent) if (!byUdid.has(f.udid)) byUdid.set(f.udid, { udid: f.udid, message: f.message });
    if (byUdid.size === 0) return [];
    const digest = digestOf([...byUdid.values()]);
    const said = this.said.has(digest);
    // Seen again: kept as the newest, so that a repeated answer is the last one forgotten.
    this.said.add(digest);
    return said ? [] : [...byUdid.values()];
  }
}

function digestOf(entries: FailedDevice[]) {
  // Lengths first: no udid or message can run into the next one. One update: a call per entry costs more than the hash.
  const text = [...entries]
    .sort((a, b) => compareStrings(a.udid, b.udid))
    .map((f) => `${f.udid.length}:${f.udid}${f.message.length}:${f.message}`)
    .join('\n');
  return createHash('sha256').update(text).digest('hex');
}
