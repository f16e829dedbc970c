import type { DeviceInfo } from './types.js';

/**
 * The one composer of a device's message (issue 41): the words said of it,
 * in the order given, joined by "; "; a word that is undefined or empty is
 * not said, and nothing said is no message. It returns the field, to be
 * spread where the message goes in the record (`{ ...info, status,
 * ...composeMessage([why]) }`), so the record's keys keep the order the
 * cloud has always received.
 *
 * The order of a listed device's words is the pipeline's: in the source,
 * its own word (a not-ready state, a cut or failed inventory, a reading kept
 * from an earlier connection), then adb's server; in `execute.ts`, the
 * features' notes in their registration order (`src/agent/features.ts`), a
 * failed source's fallback and the clipped values; then health's problems,
 * then the features' annotate pass (charge control's pause, `withNotes` at
 * each step). A feature that speaks for a
 * device no source reads (the USB layer's phone off adb, readiness's verdict
 * on it) replaces the message with its own word. No other file writes a
 * device's `message`: `test/docs/report-pipeline.rules.ts` fails when one does.
 */
export function composeMessage(words: ReadonlyArray<string | undefined>): Pick<DeviceInfo, 'message'> {
  const said = words.filter((w): w is string => w !== undefined && w !== '');
  return said.length === 0 ? {} : { message: said.join('; ') };
}

/**
 * A device's message with more said after what it already says, through
 * `composeMessage`. Returns the same record when there is nothing to add.
 */
export function withNotes<T extends DeviceInfo>(info: T, notes: ReadonlyArray<string | undefined>): T {
  if (!notes.some((n) => n !== undefined && n !== '')) return info;
  return { ...info, ...composeMessage([info.message, ...notes]) };
}

/** The record without its message, for a record whose words are said again from nothing (an UNPLUGGED one says none). */
export function withoutMessage<T extends Pick<DeviceInfo, 'message'>>(info: T): Omit<T, 'message'> {
  const { message: _said, ...rest } = info;
  return rest;
}
