// A device's own strings set into the agent's lines, clipped so a device cannot make a line as long as it likes (the
// kernel prints at most 126 characters of a USB string; a replayed recording may hold anything).

/** `text` cut to `max` characters, "…" marking the cut. */
export function clipText(text: string, max: number) {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
