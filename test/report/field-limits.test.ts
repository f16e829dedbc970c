import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { boundDevice, clippedNote, LIST_LIMITS, MAX_DEVICE_JSON_BYTES, STRING_LIMITS, type BoundedDevice } from '../../src/report/field-limits.js';

const base: DeviceInfo = {
  udid: 'R58M12AB',
  serialNumber: 'R58M12AB',
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'Android',
  platformVersion: '14',
  modelName: 'SM-G991B',
  brandName: 'samsung',
  deviceName: 'Galaxy S21',
  isAndroid: true,
  isIos: false,
};

const bounded = (info: DeviceInfo): BoundedDevice => {
  const out = boundDevice(info);
  if ('refused' in out) throw new Error(out.refused);
  return out;
};

describe('boundDevice', () => {
  it('returns a device within every limit as it is', () => {
    const out = bounded(base);
    expect(out.info).toBe(base);
    expect(out.clipped).toEqual([]);
  });

  it('clips a 4 MiB device name (settings put global device_name) to its limit, naming the field', () => {
    const out = bounded({ ...base, deviceName: 'x'.repeat(4 * 1024 * 1024) });
    expect([...out.info.deviceName!]).toHaveLength(STRING_LIMITS.deviceName);
    expect(out.info.deviceName!.endsWith('…')).toBe(true);
    expect(out.clipped).toEqual(['deviceName']);
    expect(clippedNote(out.clipped)).toContain('deviceName');
    expect(out.info.modelName).toBe(base.modelName);
  });

  it('never splits a character: a name of emoji is clipped between code points', () => {
    const out = bounded({ ...base, deviceName: '📱'.repeat(1000) });
    expect(out.info.deviceName!.isWellFormed()).toBe(true);
    expect([...out.info.deviceName!]).toHaveLength(STRING_LIMITS.deviceName);
  });

  it('counts code points, not UTF-16 units: a name of emoji at its limit is kept, one more is clipped', () => {
    const limit = STRING_LIMITS.deviceName;
    const at = bounded({ ...base, deviceName: '📱'.repeat(limit) });
    expect(at.clipped).toEqual([]);
    expect(at.info.deviceName).toBe('📱'.repeat(limit));
    expect(bounded({ ...base, deviceName: '📱'.repeat(limit + 1) }).clipped).toEqual(['deviceName']);
    // A lone surrogate (a shell can set one) is one code point, as the string's iterator counts it; so is each pair
    // after it: the high half before a pair is lone.
    const lone = '\uD83D' + '📱'.repeat(limit - 1);
    expect(bounded({ ...base, deviceName: lone }).clipped).toEqual([]);
    expect(bounded({ ...base, deviceName: `${lone}x` }).clipped).toEqual(['deviceName']);
  });

  it('clips lists and the strings inside them', () => {
    const out = bounded({
      ...base,
      installedBrowsers: Array.from({ length: 500 }, (_, i) => ({ name: `browser ${i} ${'y'.repeat(200)}` })),
      telephony: { carriersInfo: Array.from({ length: 40 }, (_, i) => ({ imei: '3'.repeat(100), meid: '', slot: i, iccid: '' })) },
    });
    expect(out.info.installedBrowsers).toHaveLength(LIST_LIMITS.installedBrowsers);
    expect(out.info.telephony!.carriersInfo).toHaveLength(LIST_LIMITS['telephony.carriersInfo']);
    expect(out.info.telephony!.carriersInfo![0]!.imei).toHaveLength(STRING_LIMITS['telephony.carriersInfo.imei']);
    expect(out.clipped).toEqual(['installedBrowsers', 'installedBrowsers.name', 'telephony.carriersInfo', 'telephony.carriersInfo.imei']);
  });

  it('keeps adbTunnelInfo to scalars, its keys and values clipped', () => {
    const out = bounded({ ...base, adbTunnelInfo: { ['k'.repeat(100)]: 'v', port: 5555, nested: { a: 1 }, host: 'h'.repeat(300) } });
    expect(out.info.adbTunnelInfo).toEqual({ [`${'k'.repeat(63)}…`]: 'v', port: 5555, host: `${'h'.repeat(255)}…` });
    expect(out.clipped).toEqual(['adbTunnelInfo.key', 'adbTunnelInfo', 'adbTunnelInfo.value']);
  });

  it('keeps a value with no limit of its own, a field named like an inherited property included', () => {
    const long = 'x'.repeat(2000);
    const odd = { ...base, machine: { constructor: long, toString: long, note: long }, flags: ['a', 'b'] } as unknown as DeviceInfo;
    const out = bounded(odd);
    expect(out.clipped).toEqual([]);
    expect(out.info).toEqual(odd);
  });

  it('leaves out a device whose udid or serial is over its limit, rather than clip an identity two phones could then share', () => {
    const out = boundDevice({ ...base, udid: 'A'.repeat(300) });
    expect(out).toEqual({ refused: 'its udid is 300 characters long, over the limit of 256' });
  });

  it('property: any device, however large its values, is within MAX_DEVICE_JSON_BYTES as JSON and every value within its limit, or refused for its identity', () => {
    // size 'max': fast-check's default size caps a string at about 10 characters, under every limit.
    const big = fc.string({ maxLength: 1200, unit: 'binary', size: 'max' });
    const many = <T>(item: fc.Arbitrary<T>, maxLength: number) => fc.array(item, { maxLength, size: 'max' });
    const device = fc.record(
      {
        udid: fc.string({ maxLength: 300, size: 'max' }),
        serialNumber: fc.string({ maxLength: 300, size: 'max' }),
        message: big,
        deviceName: big,
        modelName: big,
        brandName: big,
        platformName: big,
        platformVersion: big,
        cpuArchitecture: big,
        installedBrowsers: many(fc.record({ name: big }), 60),
        networkReachability: fc.record({ host: big, status: big, ipAddress: big, code: fc.integer() }),
        battery: fc.record({ status: big, health: big, technology: big, percentage: big }),
        telephony: fc.record({
          mobileDataState: big,
          carriersInfo: many(fc.record({ imei: big, meid: big, iccid: big, slot: fc.integer() }), 12),
        }),
        adbTunnelInfo: fc.dictionary(big, fc.oneof(big, fc.integer(), fc.object()), { maxKeys: 30, size: 'max' }),
      },
      { requiredKeys: ['udid', 'serialNumber'] },
    );
    // The values at a dotted path of STRING_LIMITS, read here on their own: a list's items by the list's path.
    const at = (value: unknown, path: string[]): unknown[] => {
      if (Array.isArray(value)) return value.flatMap((v) => at(v, path));
      if (path.length === 0) return [value];
      if (typeof value !== 'object' || value === null) return [];
      const [head, ...rest] = path;
      if (head === 'key' && rest.length === 0) return Object.keys(value);
      if (head === 'value' && rest.length === 0) return Object.values(value);
      return at((value as Record<string, unknown>)[head!], rest);
    };
    let checked = 0;
    let clipped = 0;
    fc.assert(
      fc.property(device, (d) => {
        const out = boundDevice({ ...base, ...d });
        if ('refused' in out) return;
        expect(Buffer.byteLength(JSON.stringify(out.info))).toBeLessThanOrEqual(MAX_DEVICE_JSON_BYTES);
        for (const [path, limit] of Object.entries(STRING_LIMITS))
          for (const value of at(out.info, path.split('.')))
            if (typeof value === 'string') {
              expect([...value].length, path).toBeLessThanOrEqual(limit);
              checked++;
            }
        for (const [path, limit] of Object.entries(LIST_LIMITS)) {
          const list = at(out.info, path.split('.').slice(0, -1))[0] as Record<string, unknown> | undefined;
          const items = list?.[path.split('.').at(-1)!];
          expect(Array.isArray(items) ? items.length : Object.keys(items ?? {}).length, path).toBeLessThanOrEqual(limit);
        }
        if (out.clipped.length > 0) clipped++;
      }),
      { numRuns: 25 },
    );
    // Not vacuous: values were read at the nested paths, and devices were clipped.
    expect(checked).toBeGreaterThan(25 * 10);
    expect(clipped).toBeGreaterThan(0);
  });
});
