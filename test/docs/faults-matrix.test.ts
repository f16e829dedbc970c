import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { declaredTests, referenceMatches, type DeclaredTest } from './test-titles.js';

// docs/design/faults.md sets every boundary the agent crosses against every
// way a boundary fails. This keeps it honest: every boundary has all ten
// ways, no cell is empty, and every test a cell names exists (its file, and
// a test whose title, with the describe titles before it, ends as named).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(join(root, 'docs/design/faults.md'), 'utf8');

const BOUNDARIES = [
  'The adb server connection',
  'The device tracker',
  'Host commands',
  "Each device's shell stream",
  "Each device's transport",
  'usbmuxd',
  'Lockdown',
  "A phone's wear sources",
  'The cloud: connect',
  'The cloud: TLS',
  'The cloud: headers',
  'The cloud: body',
  'The cloud: the meaning of the answer',
  'The state directory',
  "The kernel's USB messages",
  'The clock',
  'Signals',
  'stdout and the log sink',
  'Configuration and environment',
  'The iOS tunnel daemons',
  "adb's mdns",
];

const WAYS = [
  'refused',
  'closes at once',
  'closes mid-stream',
  'slow',
  'hangs',
  'floods or huge',
  'garbage or another protocol',
  'duplicate or conflicting identities',
  'flaps over and over',
  'odd characters or encodings',
];

/** The layers a row may blame (issue 34): "none" where nothing is. */
const LAYERS = ['the phone', 'its link', 'the adb server', 'the host', 'the cloud', 'the proxy', 'configuration', 'none'];

/** Whether an "attributed to" cell names only known layers: "A or B", optionally "; the rule that decides". */
function attributionProblem(cell: string): string | undefined {
  if (cell === '') return 'no attribution';
  const [layers = '', ...rule] = cell.split(';');
  const unknown = layers
    .split(' or ')
    .map((l) => l.trim())
    .filter((l) => !LAYERS.includes(l));
  if (unknown.length) return `attributed to ${unknown.map((u) => `"${u}"`).join(', ')}, not one of ${LAYERS.join(', ')}`;
  for (const r of rule)
    for (const named of r.split(/\bwhen\b/)[0]!.split(' or '))
      if (!LAYERS.includes(named.trim())) return `its rule blames "${named.trim()}", not one of the layers`;
  return undefined;
}

interface Row {
  section: string;
  cells: string[];
}

interface Reference {
  file: string;
  titles: string[];
  /** The branch it lands with, when marked PENDING(branch). */
  pending?: string;
  where: string;
}

/** The tables of each `## ` section, as rows of trimmed cells (escaped pipes kept in their cell). */
function sections(text: string): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  let section: string | undefined;
  for (const line of text.split('\n')) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      section = heading[1]!.trim();
      out.set(section, []);
      continue;
    }
    if (section === undefined || !line.startsWith('|')) continue;
    const cells = line
      .slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    // The header row and the separator row.
    if (cells.every((c) => /^-+$/.test(c)) || cells[0] === 'fails by' || cells[0] === 'invariant') continue;
    out.get(section)!.push({ section, cells });
  }
  return out;
}

/** Every `path > title` a cell names, with its PENDING mark if any. */
function references(cell: string, where: string): Reference[] {
  const out: Reference[] = [];
  for (const m of cell.matchAll(/(?:PENDING\((\w+)\)\s*)?`(test\/[^`\s]+\.test\.ts) > ([^`]+)`/g)) {
    out.push({ file: m[2]!, titles: m[3]!.split(' > ').map((t) => t.trim()), pending: m[1], where });
  }
  return out;
}

const tables = sections(doc);
const testsOf = new Map<string, DeclaredTest[]>();
function tests(file: string): DeclaredTest[] | undefined {
  if (!existsSync(join(root, file))) return undefined;
  if (!testsOf.has(file)) testsOf.set(file, declaredTests(root, file));
  return testsOf.get(file);
}

const allRows = [...tables.values()].flat();
const INVARIANTS = 'Invariants, and their bounds';
/** A boundary's row: the way, whom it blames, what the agent does, what shows it. */
const boundaryRows = allRows.filter((r) => r.section !== INVARIANTS);
const allRefs = allRows.flatMap((r) => references(r.cells.at(-1) ?? '', `${r.section} / ${r.cells[0]}`));

describe('docs/design/faults.md, the fault matrix', () => {
  it('has a table for every boundary, each with the ten ways a boundary fails, once each', () => {
    const problems: string[] = [];
    for (const boundary of BOUNDARIES) {
      const rows = tables.get(boundary);
      if (!rows) {
        problems.push(`no section "## ${boundary}"`);
        continue;
      }
      const ways = rows.map((r) => r.cells[0]);
      for (const way of WAYS)
        if (ways.filter((w) => w === way).length !== 1) problems.push(`${boundary}: "${way}" is there ${ways.filter((w) => w === way).length} times`);
      for (const way of ways) if (!WAYS.includes(way!)) problems.push(`${boundary}: "${way}" is not one of the ten ways`);
    }
    expect(problems).toEqual([]);
  });

  it('has no empty cell: each row says what the agent does and what shows it, or why it cannot happen', () => {
    const problems: string[] = [];
    for (const row of allRows) {
      const where = `${row.section} / ${row.cells[0]}`;
      const width = row.section === INVARIANTS ? 3 : 4;
      if (row.cells.length !== width || row.cells.some((c) => c === '')) {
        problems.push(`${where}: ${row.cells.length} cells, some empty`);
        continue;
      }
      const [does, shownBy] = row.cells.slice(-2) as [string, string];
      const shown = references(shownBy, where).length > 0 || /PENDING\(\w+\)/.test(shownBy);
      const impossible = /^cannot happen\b/.test(does) && does.replace(/^cannot happen\b:?/, '').trim().length >= 20;
      if (!shown && !impossible) problems.push(`${where}: names no test and does not say why it cannot happen`);
    }
    expect(allRows.length).toBeGreaterThanOrEqual(BOUNDARIES.length * WAYS.length);
    expect(problems).toEqual([]);
  });

  it('says in every row of every boundary whom the agent blames: one of the layers, or none', () => {
    const problems = boundaryRows.flatMap((r) => {
      const problem = attributionProblem(r.cells[1] ?? '');
      return problem ? [`${r.section} / ${r.cells[0]}: ${problem}`] : [];
    });
    expect(boundaryRows.length).toBeGreaterThanOrEqual((BOUNDARIES.length + 1) * WAYS.length);
    expect(problems).toEqual([]);
  });

  it('names only tests that exist (PENDING ones aside, until their branch lands)', () => {
    const checked = allRefs.filter((r) => r.pending === undefined);
    expect(checked.length).toBeGreaterThan(150);
    const missing = checked
      .filter((r) => {
        const declared = tests(r.file);
        return declared === undefined || !declared.some((t) => referenceMatches(r, t));
      })
      .map((r) => `${r.where}: ${r.file} > ${r.titles.join(' > ')}`);
    expect(missing).toEqual([]);
  });

  it('names only deploy-check steps that exist: each `test/deploy/X.sh > step` is a say or pass line of that script', () => {
    const steps = allRows.flatMap((r) => [...(r.cells.at(-1) ?? '').matchAll(/`(test\/deploy\/[\w-]+\.sh) > ([^`]+)`/g)].map((m) => [m[1]!, m[2]!] as const));
    expect(steps.length).toBeGreaterThan(10);
    const missing = steps.filter(([file, step]) => {
      const script = existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : '';
      return !script.split('\n').some(
        (line) =>
          /^\s*(?:say|pass) "/.test(line) &&
          line
            .trim()
            .slice(line.trim().indexOf('"') + 1)
            .startsWith(`${step}"`),
      );
    });
    expect(missing.map(([file, step]) => `${file} > ${step}`)).toEqual([]);
  });

  // A cell may say PENDING(branch) while its test lives on an unmerged branch;
  // main carries none.
  it('has no PENDING cell left', () => {
    expect(allRows.filter((r) => /PENDING\(/.test(r.cells.join(' '))).map((r) => `${r.section} / ${r.cells[0]}`)).toEqual([]);
  });
});
