import type { DeviceInfo } from './types.js';

/**
 * A device's message with more said after what it already says: the one
 * rule for composing it (the source's own word first, then health, recovery,
 * charge control, a failed source), joined by "; ".
 * Returns the same record when there is nothing to add.
 */
export function withNotes<T extends DeviceInfo>(info: T, notes: ReadonlyArray<string | undefined>): T {
  const said = notes.filter((n): n is string => n !== undefined && n !== '');
  if (said.length === 0) return info;
  return { ...info, message: [info.message, ...said].filter(Boolean).join('; ') };
}
