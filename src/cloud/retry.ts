// Retry-After as the cloud sends it: the daemon's planner waits at least that long before the next report (the client
// makes one attempt per call).

/** Retry-After as ms from now: delta-seconds or an HTTP-date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number) {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only a date-looking value: Date.parse accepts too much (e.g. "1.5").
  if (!/[A-Za-z]/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
