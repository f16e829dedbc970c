import type { DeviceInfo } from './types.js';

/**
 * The one composer of a device's message: the words said of it, in order, joined by "; " (undefined or empty words are
 * not said). Returns the field, to spread where the message goes, so the record's keys keep the order the cloud has
 * always received. Words come in the pipeline's order: the source's, then the features' notes, a failed source's
 * fallback and clipped values (execute.ts), health's problems, then the annotate passes; a feature speaking for a device
 * no source reads replaces it; the standing verdicts' words lead it all (src/devices/compose.ts). No other file writes `message` (test/docs/report-pipeline.rules.ts).
 */
export function composeMessage(words: ReadonlyArray<string | undefined>) {
  const said = words.filter((w): w is string => w !== undefined && w !== '');
  return said.length === 0 ? {} : { message: said.join('; ') };
}

/** The characters (code points) a device's message holds at most: the agent's own words, a few sentences (the cloud's API states no limit). */
export const MESSAGE_MAX_CHARS = 1024;

/** The agent's words within the message's limit: cut after the last whole word that fits, "…" marking the cut. */
export function withinMessage(text: string) {
  const chars = [...text];
  if (chars.length <= MESSAGE_MAX_CHARS) return text;
  const cut = chars.slice(0, MESSAGE_MAX_CHARS - 1).join('');
  const space = cut.lastIndexOf(' ');
  return `${space > 0 ? cut.slice(0, space) : cut}…`;
}

/** A device's message with more said after it, through composeMessage; the same record when there is nothing to add. */
export function withNotes<T extends DeviceInfo>(info: T, notes: ReadonlyArray<string | undefined>) {
  if (!notes.some((n) => n !== undefined && n !== '')) return info;
  return { ...info, ...composeMessage([info.message, ...notes]) };
}

/**
 * A device's message led by these words, the whole cut to the message's limit: words joined after the field limits
 * were applied (src/report/execute.ts), the standing verdicts' (src/devices/compose.ts), which a cut spares last.
 */
export function withWordsFirst<T extends DeviceInfo>(info: T, words: readonly string[]) {
  if (words.length === 0) return info;
  return { ...info, message: withinMessage(composeMessage([...words, info.message]).message!) };
}

/** The record without its message, for a record whose words are said again from nothing (an UNPLUGGED one says none). */
export function withoutMessage<T extends Pick<DeviceInfo, 'message'>>(info: T) {
  const { message: _said, ...rest } = info;
  return rest;
}
