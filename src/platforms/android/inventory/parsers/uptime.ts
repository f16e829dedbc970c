// /proc/uptime is "<seconds since boot> <idle seconds summed over CPUs>".

/** Seconds since boot, with the fraction the kernel prints. */
export function parseUptimeSeconds(text: string) {
  const match = /^\s*(\d+(?:\.\d+)?)\s/.exec(text + ' ');
  if (!match) return undefined;
  const seconds = Number(match[1]);
  return Number.isFinite(seconds) && seconds <= Number.MAX_SAFE_INTEGER ? seconds : undefined;
}
