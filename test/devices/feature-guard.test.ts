import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { actedAll, columnsOf, serialOf } from '../../src/devices/feature.js';
import type { Feature } from '../../src/features/context.js';
import { captureLogger } from '../log/capture.js';
import { reportBed } from '../agent/bed.js';

// A feature whose hooks throw, registered between two that work, on the
// report path as the daemon wires it: every hook kind fails, the report
// still goes out with the others' words in it, the views still answer with
// the others' parts, and each failing hook is said once and counted.

const boom = (): never => {
  throw new Error('boom');
};

/** A feature that says `word` in every hook it has. */
const saying = (word: string): Feature => ({
  name: word,
  notes: () => [`${word} says so`],
  annotate: (devices) => devices.map((d): DeviceInfo => ({ ...d, deviceName: `${d.deviceName ?? ''}${word};` })),
  judge: (devices) => devices.map((d): DeviceInfo => ({ ...d, cpuArchitecture: word })),
  columns: () => [{ key: word, title: word.toUpperCase() }],
  cells: () => ({ [word]: 'yes' }),
  fields: () => [{ key: `${word}Field`, place: { after: 'udid' }, value: () => 1 }],
  metrics: () => [{ name: `${word}_total`, help: word, type: 'counter', samples: [{ value: 1 }] }],
  gauges: () => [{ name: `${word}_gauge`, help: word, samples: (row) => [{ labels: { udid: row.udid }, value: 2 }] }],
});

const HOOKS = ['notes', 'owe', 'judge', 'annotate', 'answered', 'changed', 'reported', 'acted', 'serialOf', 'fields', 'columns', 'cells', 'metrics', 'gauges'];
const broken = { name: 'broken', ...Object.fromEntries(HOOKS.map((h) => [h, boom])) } as Feature;
/** A feature whose hooks answer, and whose parts throw when the views call them for a device. */
const brokenParts: Feature = {
  name: 'broken-parts',
  fields: () => [{ key: 'bad', place: { after: 'udid' }, value: boom }],
  columns: () => [{ title: 'BAD', cell: boom }],
  gauges: () => [{ name: 'bad_gauge', help: 'bad', samples: boom }],
};

describe("a feature's hooks, isolated and timed", () => {
  it('a feature that throws in every hook: the report goes out with the words of the features before and after it, the views answer, each hook said once', async () => {
    const { logger, lines } = captureLogger();
    const bed = reportBed({
      logger,
      more: [saying('before'), broken, brokenParts, saying('after')],
      daemon: { booking: { ask: () => Promise.reject(new Error('none')) } },
    });
    bed.loop.start();
    bed.source.list(['P1'], 'device', true);
    await bed.advance(2_000);
    void bed.loop.report('again');
    await bed.advance(2_000);
    expect(bed.cloud.bodies.length).toBeGreaterThanOrEqual(2);
    const [device] = bed.cloud.bodies.at(-1)!.body.devices;
    expect(device).toMatchObject({ udid: 'P1', deviceName: 'before;after;', cpuArchitecture: 'after' });
    expect(device!.message).toContain('before says so');
    expect(device!.message).toContain('after says so');
    actedAll(bed.features, { action: 'x', actsOn: 'link', target: 'P1', outcome: 'ok' });
    expect(serialOf(bed.features, 'P1')).toBeUndefined();
    const columns = columnsOf(bed.features);
    expect(columns.map((c) => c.title)).toEqual(expect.arrayContaining(['BEFORE', 'BAD', 'AFTER']));
    const [row] = bed.views.rows();
    expect((columns.find((c) => c.title === 'BAD') as { cell(r: unknown): string }).cell(row)).toBe('-');
    expect(row).toMatchObject({ beforeField: 1, afterField: 1, features: { before: 'yes', after: 'yes' } });
    const text = await bed.views.metrics();
    for (const word of ['before', 'after']) expect(text).toContain(`${word}_total 1`);
    expect(text).toContain('after_gauge{udid="P1"} 2');
    // Said once per hook however often it failed (two reports, the views asked twice), and counted each time.
    await bed.views.metrics();
    const said = lines().filter((l) => l.feature === 'broken');
    expect(said.map((l) => l.hook).sort()).toEqual([...HOOKS].sort());
    expect(said.every((l) => l.level === 'error' && /^feature broken: its \w+ hook failed \(Error: boom\); .* report it$/.test(String(l.msg)))).toBe(true);
    expect(
      lines()
        .filter((l) => l.feature === 'broken-parts')
        .map((l) => l.hook)
        .sort(),
    ).toEqual(['columns.cell', 'fields.value', 'gauges.samples']);
    expect(text).not.toContain('bad_gauge{');
    expect(text).toMatch(/^device_agent_feature_hook_failures_total\{feature="broken",hook="annotate"\} [2-9]$/m);
    expect(text).toMatch(/^device_agent_feature_hook_seconds_total\{feature="after",hook="notes"\} \d/m);
  });
});
