// /proc/uptime is "<seconds since boot> <idle seconds summed over CPUs>";
// `date +%s` is the device clock in epoch seconds.

export function parseUptime(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s/.exec(text + ' ');
  if (!match) return undefined;
  const seconds = Math.floor(Number(match[1]));
  return Number.isSafeInteger(seconds) ? seconds : undefined;
}

export function parseEpochSeconds(text: string): number | undefined {
  const match = /^\s*(\d{9,11})\s*$/.exec(text);
  return match ? Number(match[1]) : undefined;
}
