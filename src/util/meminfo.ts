// Parses /proc/meminfo ("Key:   123 kB" lines). Kernels before 3.14 (Android
// 4.4/5 era) have no MemAvailable; then available is estimated the way the
// kernel did before it had the field: MemFree + Buffers + Cached.

export interface Memory {
  /** Bytes. */
  total: number;
  /** Bytes: total minus available. */
  used: number;
}

export function parseMeminfo(text: string) {
  const fields = new Map<string, number>();
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const match = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (!match) continue;
    const [, key = '', value = ''] = match;
    const kib = Number(value);
    if (!fields.has(key) && Number.isSafeInteger(kib * 1024)) fields.set(key, kib * 1024);
  }
  const total = fields.get('MemTotal');
  const free = fields.get('MemFree');
  const available = fields.get('MemAvailable') ?? (free === undefined ? undefined : free + (fields.get('Buffers') ?? 0) + (fields.get('Cached') ?? 0));
  if (total === undefined || total <= 0 || available === undefined) return undefined;
  return { total, used: Math.max(0, total - Math.min(available, total)) };
}
