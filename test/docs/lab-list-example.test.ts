import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MAX_CELL_CHARS } from '../../src/cli/table.js';
import { CHECK_IDS } from '../../src/features/readiness/checks.js';

// docs/operations/lab.md shows what `list` prints (a run against the simulator's
// recorded phones). Its READY cells are held to the cells the readiness feature
// prints (src/features/readiness/feature.ts, verdict.ts), so that a value `list`
// no longer prints (once `not readable`) does not stay in the example.

const lab = readFileSync(new URL('../../docs/operations/lab.md', import.meta.url), 'utf8');

function example(): string[] {
  const start = lab.indexOf('```\n$ device-agent list\n');
  expect(start, 'no `$ device-agent list` example in docs/operations/lab.md').toBeGreaterThanOrEqual(0);
  const end = lab.indexOf('\n```', start + 4);
  const lines = lab.slice(start, end).split('\n').slice(2);
  return lines.slice(0, lines.indexOf(''));
}

/** A checks list as verdictCell prints it: check ids joined by ", " (past three, " and N more"), the last one cut short where the cell is clipped. */
function checkList(text: string): boolean {
  const clipped = text.endsWith('…');
  const ids = (clipped ? text.slice(0, -1) : text).replace(/ and \d+ more$/, '').split(', ');
  return ids.every((id, i) => CHECK_IDS.includes(id) || (clipped && i === ids.length - 1 && CHECK_IDS.some((c) => c.startsWith(id))));
}

function isReadyCell(cell: string): boolean {
  if (['ready', 'not read yet', 'no check applies', '-'].includes(cell)) return true;
  const m = /^(not ready|unread): (.+)$/.exec(cell);
  return m !== null && checkList(m[2]!);
}

describe('docs/operations/lab.md, the `list` example', () => {
  it('shows in READY only cells the readiness feature prints, within the table’s cell width', () => {
    const [header, ...rows] = example();
    const at = header!.indexOf('READY');
    const next = header!.indexOf('PROBLEMS');
    expect(at).toBeGreaterThan(0);
    expect(rows.length).toBeGreaterThan(0);
    const cells = rows.map((r) => r.slice(at, next < 0 ? undefined : next).trim());
    expect(cells.filter((c) => !isReadyCell(c) || [...c].length > MAX_CELL_CHARS)).toEqual([]);
  });
});
