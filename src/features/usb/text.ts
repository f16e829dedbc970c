// A device's own strings set into the agent's lines, clipped so a device cannot make a line as long as it likes (the
// kernel prints at most 126 characters of a USB string; a replayed recording may hold anything).

/** The characters of a device's string a line quotes at most. */
const MAX_CHARS = 64;

/** `text` cut to MAX_CHARS characters, "…" marking the cut. */
export function clipText(text: string) {
  return text.length <= MAX_CHARS ? text : `${text.slice(0, MAX_CHARS - 1)}…`;
}
