import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReadiness } from '../../../../src/platforms/android/inventory/parsers/readiness.js';
import { READINESS_PROBES, READINESS_PROPS } from '../../../../src/platforms/android/inventory/probes/readiness.js';
import { buildInventoryScript, splitSections } from '../../../../src/platforms/android/inventory/script.js';
import { fixture, readinessSection } from '../../../features/readiness/section.js';

// The readiness sections as the phone's shell prints them: the probe's
// commands under a POSIX sh, with a `settings` that prints a recorded list
// (or what Android 5's SettingsCmd prints without `list`) and exits as
// given. What the script's `tally` counts is what says a list was read
// whole; the tests elsewhere build the section with section.ts, which this
// holds to the shell's output.

function run(lists: { global: string; system: string }, status: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'readiness-tally-'));
  writeFileSync(join(dir, 'global.txt'), lists.global);
  writeFileSync(join(dir, 'system.txt'), lists.system);
  const settings = join(dir, 'settings');
  // Android 5's SettingsCmd prints its errors and usage on stderr.
  writeFileSync(settings, `#!/bin/sh\ncat "${dir}/$2.txt" >&2\nexit ${status}\n`);
  chmodSync(settings, 0o755);
  const script = buildInventoryScript({ tiers: [], sections: READINESS_PROBES.map((p) => p.section) });
  const out = execFileSync('/bin/sh', ['-c', script], { env: { PATH: `${dir}:/usr/bin:/bin` }, encoding: 'utf8' });
  const { sections } = splitSections(out);
  return READINESS_PROBES.flatMap((p) => sections.get(p.section) ?? []).join('\n');
}

describe("the readiness probe's settings lists under a shell", () => {
  it('counts the rows a list printed, kept or not: a recorded list is read whole, and reads as section.ts builds it', () => {
    const lists = { global: fixture('lineage18-sm-a520f-global.txt'), system: fixture('lineage18-sm-a520f-system.txt') };
    const text = run(lists, 0);
    const rows = (t: string) => t.split('\n').filter((l) => /^[a-z_]+=/.test(l)).length;
    expect(text).toContain(`rows:global=${rows(lists.global)}`);
    expect(text).toContain(`rows:system=${rows(lists.system)}`);
    const shell = parseReadiness(text)!;
    expect([...shell.whole.keys()]).toEqual(['global', 'system']);
    // The stub shell has no getprop: each property the probe asks for prints blank.
    const props = Object.fromEntries(READINESS_PROPS.map((p) => [p, '']));
    expect(shell).toEqual(parseReadiness(readinessSection({ lists: { global: { text: lists.global }, system: { text: lists.system } }, props })));
  });

  it('a settings without list (Android 5: its usage, exit 0) prints no row: no list read whole', () => {
    const usage = 'Invalid command: list\nusage:  settings [--user NUM] get namespace key\n        settings [--user NUM] put namespace key value\n';
    const text = run({ global: usage, system: usage }, 0);
    expect(text).toContain('rows:global=0');
    expect(parseReadiness(text)!.whole.size).toBe(0);
  });

  it('a stack trace with `uid=2000` in it is no row', () => {
    const trace =
      'Error while accessing settings provider\njava.lang.SecurityException: Permission Denial: reading from uid=2000 requires android.permission.X\n';
    expect(run({ global: trace, system: trace }, 0)).toContain('rows:global=0');
  });
});
