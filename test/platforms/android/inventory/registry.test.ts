import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../../../src/platforms/android/inventory/probes/registry.js';
import { recordedCommand } from './support.js';
import { buildInventoryScript, sectionStart } from '../../../../src/platforms/android/inventory/script.js';

const README = new URL('../../../../docs/reference/device-info.md', import.meta.url);

// The probe table of docs/reference/device-info.md, rendered from the registry; the last test keeps the page's copy equal to it.
const TABLE_BEGIN =
  '<!-- probe-table: generated from src/platforms/android/inventory/probes (UPDATE_README=1 npx vitest run test/platforms/android/inventory/registry.test.ts) -->';
const TABLE_END = '<!-- /probe-table -->';

const TIER_TEXT = { connection: 'per connection', slow: 'slow', volatile: 'every report' } as const;

function probeTable(): string {
  const rows = PROBES.map((probe) => {
    const command = typeof probe.command === 'string' ? probe.command : 'ping -c 1 -W 2 -w 3 HOST';
    const cells = [probe.section, TIER_TEXT[probe.tier], `\`${command.replace(/\|/g, '\\|')}\``, probe.fields.join(', '), probe.note];
    return `| ${cells.join(' | ')} |`;
  });
  return [TABLE_BEGIN, '| Section | Tier | Command | Fields | Notes |', '|---|---|---|---|---|', ...rows, TABLE_END].join('\n');
}

describe('probe registry', () => {
  it('names each section once, with a plain name', () => {
    const names = PROBES.map((p) => p.section);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9_]+$/);
  });

  it('keeps the uptime probe last (the boot is dated when the output arrives)', () => {
    expect(PROBES.at(-1)!.section).toBe('uptime');
  });

  it('reads at most 10 commands per periodic cycle', () => {
    const script = buildInventoryScript({ tiers: ['volatile'], reachabilityHost: 'cloud.example.com' });
    expect(script.split('\n').filter((line) => /^m [a-z0-9_]+;/.test(line) && line !== 'm end;').length).toBeLessThanOrEqual(10);
  });

  it("the wear sections are on the slow tier: the periodic cycle's script runs none of them", () => {
    const wear = PROBES.filter((p) => p.section.startsWith('wear_'));
    expect(wear.map((p) => p.section)).toEqual(['wear_files', 'wear_packages', 'wear_tradein']);
    expect(wear.filter((p) => p.tier !== 'slow')).toEqual([]);
    const script = buildInventoryScript({ tiers: ['volatile'], reachabilityHost: 'cloud.example.com' });
    for (const p of wear) expect(script).not.toContain(sectionStart(p.section));
  });

  it('keys recordings by the bare command', () => {
    expect(recordedCommand(PROBES.find((p) => p.section === 'orientation')!)).toBe('dumpsys input');
    expect(recordedCommand(PROBES.find((p) => p.section === 'battery')!)).toBe('dumpsys battery');
  });

  it("the README's DeviceInfo field table names, for each field, exactly the probes whose fields feed it", () => {
    const rows = fieldTableRows(readFileSync(README, 'utf8'));
    expect(rows.length, 'README lacks the DeviceInfo field table').toBeGreaterThan(20);
    const related = (a: string, b: string) => a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
    const bySection = new Map(PROBES.map((p) => [p.section, p]));
    // Each section a row names is a probe that declares a field of that row.
    for (const row of rows) {
      for (const section of row.sections) {
        const probe = bySection.get(section);
        expect(probe, `README row ${row.fields.join('/')} names "${section}", which is no probe`).toBeDefined();
        expect(
          row.fields.some((field) => probe!.fields.some((f) => related(f, field))),
          `README names ${section} for ${row.fields.join('/')}, but that probe declares ${probe!.fields.join(', ')}`,
        ).toBe(true);
      }
    }
    // Each field a probe declares has a row naming that probe.
    for (const probe of PROBES) {
      for (const field of probe.fields) {
        expect(
          rows.some((row) => row.sections.includes(probe.section) && row.fields.some((f) => related(f, field))),
          `no README row names ${probe.section} for ${field}`,
        ).toBe(true);
      }
    }
  });

  it("the README's probe table is the one the registry renders", () => {
    const text = readFileSync(README, 'utf8');
    const start = text.indexOf(TABLE_BEGIN);
    const end = text.indexOf(TABLE_END);
    expect(start, 'README lacks the probe table markers').toBeGreaterThanOrEqual(0);
    const current = text.slice(start, end + TABLE_END.length);
    if (process.env.UPDATE_README === '1' && current !== probeTable()) {
      writeFileSync(README, text.slice(0, start) + probeTable() + text.slice(end + TABLE_END.length));
      return;
    }
    expect(current, 'run: UPDATE_README=1 npx vitest run test/platforms/android/inventory/registry.test.ts').toBe(probeTable());
  });
});

interface FieldRow {
  /** DeviceInfo paths the row covers ("resolution.width/height" is two). */
  fields: string[];
  /** Probe sections the row names; (adb), (agent), (config) and "—" are not probes. */
  sections: string[];
}

/** The rows of the README table headed "| Field | Section: command |". */
function fieldTableRows(readme: string): FieldRow[] {
  const start = readme.indexOf('| Field | Section: command |');
  const rows: FieldRow[] = [];
  for (const line of readme.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [fieldCell = '', sectionCell = ''] = line
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    const fields = fieldCell.split(/\s*[,/]\s*/).map((part, i, parts) => {
      // "resolution.width/height": later parts take the first part's parent.
      const parent = parts[0]!.includes('.') ? parts[0]!.slice(0, parts[0]!.lastIndexOf('.') + 1) : '';
      return i > 0 && !part.includes('.') && parent ? parent + part : part;
    });
    const sections = sectionCell
      .split(':')[0]!
      .split(',')
      .map((name) => name.trim())
      .filter((name) => /^[a-z0-9_]+$/.test(name));
    rows.push({ fields, sections });
  }
  return rows;
}
