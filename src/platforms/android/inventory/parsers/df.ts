// Parses `df /data` in the three forms Android prints:
//   toolbox (Android 5-6):  "Filesystem  Size  Used  Free  Blksize", the first
//                           column is the mount point, sizes like 21.9G/304.0K
//                           (Android 4 prints whole units: 27G);
//   toybox (Android 7+):    "Filesystem 1K-blocks Used Available Use% Mounted on";
//   toybox -h:              the same columns with human sizes (24G, 684K).
// Sizes with units are binary (K = 1024), as both implementations print them.

export interface Capacity {
  /** Bytes. */
  total: number;
  /** Bytes. */
  used: number;
}

const UNITS: Record<string, number> = { '': 1, B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 };

/** "21.9G" → bytes; plain numbers are multiplied by `plainUnit`. */
export function parseSize(text: string, plainUnit = 1) {
  const match = /^(\d+(?:\.\d+)?)([BKMGTP]?)$/i.exec(text.trim());
  if (!match) return undefined;
  const [, number = '', unit = ''] = match;
  const factor = unit === '' ? plainUnit : UNITS[unit.toUpperCase()];
  if (factor === undefined) return undefined;
  const bytes = Math.round(Number(number) * factor);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

export function parseDf(text: string, mountPoint = '/data') {
  const lines = text.replace(/\r/g, '').split('\n');
  const headerAt = lines.findIndex((line) => /^Filesystem\s/.test(line));
  if (headerAt < 0) return undefined;
  const header = (lines[headerAt] ?? '').trim().split(/\s+/);
  const toolbox = header.includes('Blksize');
  const blockUnit = /^(\d+)K-blocks$/.exec(header[1] ?? '');
  const plainUnit = blockUnit ? Number(blockUnit[1]) * 1024 : 1;

  const rows: string[][] = [];
  let pending: string | undefined;
  for (const line of lines.slice(headerAt + 1)) {
    const cells = line.trim().split(/\s+/).filter(Boolean);
    if (cells.length === 0) continue;
    // A long device name can sit alone on its own line, its numbers below.
    if (cells.length === 1 && !toolbox) {
      pending = cells[0];
      continue;
    }
    rows.push(pending !== undefined && /^\d/.test(cells[0] ?? '') ? [pending, ...cells] : cells);
    pending = undefined;
  }

  const mountOf = (cells: string[]) => (toolbox ? cells[0] : cells.at(-1));
  const candidates = rows.filter((cells) => cells.length >= (toolbox ? 4 : 6));
  const row = candidates.find((cells) => mountOf(cells) === mountPoint) ?? (candidates.length === 1 ? candidates[0] : undefined);
  if (!row) return undefined;
  const total = parseSize(row[1] ?? '', plainUnit);
  const used = parseSize(row[2] ?? '', plainUnit);
  if (total === undefined || used === undefined || used > total * 1.01) return undefined;
  return { total, used };
}
