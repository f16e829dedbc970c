import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../src/inventory/probes/registry.js';
import { probeTable, TABLE_BEGIN, TABLE_END } from '../../src/inventory/probes/table.js';
import { recordedCommand } from '../../src/inventory/probes/types.js';
import { buildInventoryScript, marker, SECTION } from '../../src/inventory/script.js';

const README = new URL('../../README.md', import.meta.url);

describe('probe registry', () => {
  it('names each section once, with a plain name', () => {
    const names = PROBES.map((p) => p.section);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z0-9_]+$/);
  });

  it('SECTION (the assembler\'s names) and the registry name the same sections', () => {
    expect(new Set(Object.values(SECTION))).toEqual(new Set([...PROBES.map((p) => p.section)]));
  });

  it('keeps the uptime probe last (the boot is dated when the output arrives)', () => {
    expect(PROBES.at(-1)!.section).toBe('uptime');
  });

  it('reads at most 10 commands per periodic cycle', () => {
    const script = buildInventoryScript({ tiers: ['volatile'], reachabilityHost: 'cloud.example.com' });
    expect(script.split('\n').filter((line) => line.startsWith("echo '<<<DA:") && !line.includes(marker('end'))).length).toBeLessThanOrEqual(10);
  });

  it('keys recordings by the bare command', () => {
    expect(recordedCommand(PROBES.find((p) => p.section === 'orientation')!)).toBe('dumpsys input');
    expect(recordedCommand(PROBES.find((p) => p.section === 'battery')!)).toBe('dumpsys battery');
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
    expect(current, 'run: UPDATE_README=1 npx vitest run test/inventory/registry.test.ts').toBe(probeTable());
  });
});
