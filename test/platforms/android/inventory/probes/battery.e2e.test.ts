// The battery probe's filter as the phone runs it: the script's own `keep` and the probe's command, in a real shell
// whose PATH holds only the simulator's stubs answering `dumpsys battery` with a recording. The parse of what leaves
// the phone must equal the parse of the whole dump, on every recording and for every key the parser reads.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { BATTERY_KEYS, parseBattery } from '../../../../../src/platforms/android/inventory/parsers/battery.js';
import { buildInventoryScript, splitSections } from '../../../../../src/platforms/android/inventory/script.js';
import { listProfiles, loadProfile, makeProfile } from '../../../../sim/profile.js';
import { spawnShell } from '../../../../sim/shell.js';
import { writeStubs } from '../../../../sim/stubs.js';
import { fixture } from '../fixture.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const SCRIPT = buildInventoryScript({ tiers: [], sections: ['battery'] });

/** Android's shell is mksh; dash (/bin/sh) is as strict a POSIX shell. The simulator runs bash. */
const mksh = ['/bin/mksh', '/usr/bin/mksh'].find((path) => {
  try {
    execFileSync(path, ['-c', 'true']);
    return true;
  } catch {
    return false;
  }
});

/** What the battery section holds when the phone's `dumpsys battery` prints `dump`, under `shell` or the simulator's. */
async function filtered(dump: string, shell?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'battery-filter-'));
  dirs.push(dir);
  const stubs = await writeStubs(makeProfile('battery', { 'dumpsys battery': dump }), dir);
  const output = shell
    ? (await promisify(execFile)(shell, ['-c', SCRIPT], { env: { PATH: stubs.bin }, cwd: dir })).stdout
    : await new Promise<string>((resolve) => {
        const child = spawnShell(SCRIPT, stubs, dir);
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
        child.stderr.resume();
        child.on('close', () => resolve(out));
      });
  const { sections, ended } = splitSections(output);
  expect(ended).toBe(true);
  return sections.get('battery') ?? '';
}

/** Every recorded `dumpsys battery`: the parser's fixtures and the device profiles'. */
const RECORDINGS = new Map<string, string>([
  ...readdirSync(new URL('../parsers/fixtures/battery/', import.meta.url)).map((name): [string, string] => [name, fixture('battery', name)]),
  ...listProfiles().flatMap((name): [string, string][] => {
    const dump = loadProfile(name).commands.get('dumpsys battery')?.output;
    return dump === undefined ? [] : [[name, dump]];
  }),
]);

describe('the battery filter on the phone', () => {
  it.each([
    ['the simulator (bash)', undefined],
    ['/bin/sh (dash)', '/bin/sh'],
  ])('under %s: every recording parses the same filtered as whole, in at most 512 bytes', async (_name, shell) => {
    expect(RECORDINGS.size).toBeGreaterThanOrEqual(12);
    for (const [name, dump] of RECORDINGS) {
      const kept = await filtered(dump, shell);
      expect(Object.keys(parseBattery(dump)).length, name).toBeGreaterThan(0);
      expect(parseBattery(kept), name).toEqual(parseBattery(dump));
      expect(Buffer.byteLength(kept), name).toBeLessThanOrEqual(512);
    }
  });

  it.skipIf(!mksh)('under mksh, the shell of Android 5 to 16 (skipped where mksh is not installed: apt-get install mksh)', async () => {
    for (const [name, dump] of RECORDINGS) expect(parseBattery(await filtered(dump, mksh)), name).toEqual(parseBattery(dump));
  });

  it('keeps the line of every key the parser reads, indented by spaces or tabs, and none of the lines around them', async () => {
    const wanted = [...BATTERY_KEYS].flatMap((key) => [`  ${key}: 1`, `\t${key}: 2`, ` \t ${key}:3`]);
    // Real neighbours: Samsung's event log and counters (samsung-galaxy-a35), Android 14's capacity level, and
    // invented ones that only start like a key.
    const around = [
      '08-14 04:11:12.234  Sending ACTION_BATTERY_CHANGED: level:85, status:2, health:2, remain:1001, ac:true, usb:false, wireless:false',
      '  Capacity level: -1',
      '  Max charging current: 0',
      ' The last voltage value sent via the battery changed broadcast: 4339',
      '  mSavedBatteryMaxTemp: 534',
      '  charge counter: 4750000',
      'Current Battery Service state:',
      '  levels: 5',
      '  status 2',
    ];
    const kept = (await filtered([...around, ...wanted].join('\n') + '\n')).split('\n');
    expect(kept).toEqual(wanted);
  });

  it('never changes what the parser reads, whatever the lines (generated from the keys, their look-alikes and noise)', async () => {
    const key = fc.constantFrom(...BATTERY_KEYS, 'Capacity level', 'Max charging current', 'levels', 'charge counter', 'mSavedBatteryMaxTemp');
    const indent = fc.constantFrom('', ' ', '  ', '\t', ' \t', '08-14 04:11:12.234  Sending ACTION_BATTERY_CHANGED: ');
    // Values as dumpsys prints them: no backslash, which mksh's echo would read as an escape.
    const value = fc.oneof(fc.constantFrom('true', 'false', '0', '95', '[86]', '4338', '-45', 'Li-ion', '100.00'), fc.string({ unit: 'grapheme-ascii' }));
    const line = fc.oneof(
      fc.tuple(indent, key, fc.constantFrom(':', ': ', ' : '), value).map((parts) => parts.join('')),
      fc.string({ unit: 'grapheme-ascii' }),
    );
    const dump = fc.array(line, { maxLength: 30 }).map((lines) => lines.map((l) => l.replace(/[\\\n\r]/g, '')).join('\n') + '\n');
    await fc.assert(
      fc.asyncProperty(dump, async (text) => {
        expect(parseBattery(await filtered(text))).toEqual(parseBattery(text));
      }),
      { numRuns: 40 },
    );
  });
});
