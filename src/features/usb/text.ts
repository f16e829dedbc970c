// What a device chose (its serial, product or manufacturer, as the kernel or
// sysfs shows them) set into the agent's own lines: clipped, so that a
// device cannot make a log line, a message or a doctor line as long as it
// likes. The kernel prints at most 126 characters of a USB string; a
// recording replayed to the agent may hold anything.

/** `text` cut to `max` characters, "…" marking the cut. */
export function clipText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
