import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateReportBody } from './schema.js';
import { sampleDevice, sampleReport } from './sample.js';

/** Every leaf of a JSON value with its dotted path, as the validator names paths. */
function leaves(value: unknown, path = ''): Array<[string, unknown]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  }
  return [[path, value]];
}

function setAt(root: unknown, path: string, next: unknown): void {
  const keys = path.match(/[^.[\]]+/g) ?? [];
  let node = root as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = next;
}

/** A value of the wrong JSON type for the given one (an integer field also rejects a fraction). */
function wrongFor(value: unknown): unknown[] {
  if (typeof value === 'string') return [1, true, null, ['x']];
  if (typeof value === 'boolean') return ['true', 0, null];
  if (typeof value === 'number') return ['1', 1.5, false, null];
  return ['x'];
}

describe('validateReportBody', () => {
  it('accepts the sample report and a body without devices', () => {
    expect(validateReportBody(sampleReport([sampleDevice('A'), sampleDevice('B', { status: 'UNPLUGGED' })]))).toEqual([]);
    const { devices: _unused, ...withoutDevices } = sampleReport();
    expect(validateReportBody(withoutDevices)).toEqual([]);
  });

  it('names the exact path of any leaf given a wrong type', () => {
    const paths = leaves(sampleReport());
    fc.assert(
      fc.property(fc.integer({ min: 0, max: paths.length - 1 }), fc.nat(), (index, pick) => {
        const [path, value] = paths[index]!;
        const options = wrongFor(value);
        const body = sampleReport();
        setAt(body, path, options[pick % options.length]);
        const violations = validateReportBody(body);
        return violations.length === 1 && violations[0]!.path === path;
      }),
      { numRuns: 300 },
    );
  });

  it('requires nodeId, machine, every machine field and each device udid', () => {
    const body = sampleReport() as unknown as Record<string, Record<string, unknown>>;
    delete body.machine!.network;
    delete (body.devices as unknown as Record<string, unknown>[])[0]!.udid;
    delete body.nodeId;
    expect(
      validateReportBody(body)
        .map((v) => v.path)
        .sort(),
    ).toEqual(['devices[0].udid', 'machine.network', 'nodeId']);
  });

  it('reports unknown fields only when asked to', () => {
    const body = { ...sampleReport(), extra: 1 };
    expect(validateReportBody(body)).toEqual([]);
    expect(validateReportBody(body, { rejectUnknownFields: true })).toEqual([{ path: 'extra', message: 'is not a field of the contract' }]);
  });

  it('rejects a body that is not an object', () => {
    for (const body of [null, [], 'x', 3]) expect(validateReportBody(body)[0]?.path).toBe('(body)');
  });
});
