// Parses /proc/meminfo ("Key:   123 kB" lines). Kernels before 3.14 (Android
// 4.4/5 era) have no MemAvailable; then available is estimated the way the
// kernel did before it had the field: MemFree + Buffers + Cached.

export interface Memory {
  /** Bytes. */
  total: number;
  /** Bytes: total minus available. */
  used: number;
  /** True when MemAvailable was missing and the estimate was used. */
  estimated: boolean;
}

export function parseMeminfoFields(text: string) {
  const fields = new Map<string, number>();
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const match = /^([A-Za-z0-9_()]+):\s+(\d+)(?:\s+kB)?\s*$/.exec(line);
    if (!match) continue;
    const [, key = '', value = ''] = match;
    const kib = Number(value);
    if (!fields.has(key) && Number.isSafeInteger(kib * 1024)) fields.set(key, kib * 1024);
  }
  return fields;
}

export function parseMeminfo(text: string): Memory | undefined {
  const fields = parseMeminfoFields(text);
  const total = fields.get('MemTotal');
  if (total === undefined || total <= 0) return undefined;
  let available = fields.get('MemAvailable');
  let estimated = false;
  if (available === undefined) {
    const free = fields.get('MemFree');
    if (free === undefined) return undefined;
    available = free + (fields.get('Buffers') ?? 0) + (fields.get('Cached') ?? 0);
    estimated = true;
  }
  return { total, used: Math.max(0, total - Math.min(available, total)), estimated };
}
