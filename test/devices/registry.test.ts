import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { facetKey } from '../../src/devices/facet.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { androidPhone } from '../support/devices.js';

const info = (udid: string): DeviceInfo => androidPhone(udid);

const CONNECTION = facetKey<number>('test-connection', 'connection');
const RECORD = facetKey<number>('test-record', 'record');
const DEVICE = facetKey<number>('test-device', 'device');

describe('DeviceRegistry', () => {
  it('keeps a facet by connection, by record or by the stable key, as its key says', () => {
    const registry = new DeviceRegistry();
    registry.sync('android', new Map([['S1', 'device']]));
    for (const key of [CONNECTION, RECORD, DEVICE]) registry.facet(key).set('android/S1', 1);
    // A new state is a new connection: only the connection's facet goes.
    registry.sync('android', new Map([['S1', 'offline']]));
    expect([CONNECTION, RECORD, DEVICE].map((k) => registry.facet(k).get('android/S1'))).toEqual([undefined, 1, 1]);
    registry.facet(CONNECTION).set('android/S1', 2);
    // Gone: only the stable key's facet stays, and nothing is taken for a record that is not listed.
    registry.sync('android', new Map());
    expect([CONNECTION, RECORD, DEVICE].map((k) => registry.facet(k).get('android/S1'))).toEqual([undefined, undefined, 1]);
    registry.facet(RECORD).set('android/S1', 3);
    registry.sync('android', new Map([['S1', 'device']]));
    expect(registry.facet(RECORD).get('android/S1')).toBeUndefined();
    expect(() => registry.facet(facetKey<number>('test-device', 'record'))).toThrow(/kept by device/);
  });

  it('notes an outcome only for the connection that asked', () => {
    const registry = new DeviceRegistry();
    registry.sync('android', new Map([['S1', 'device']]));
    const asked = registry.readings.asked('android/S1', 0)!;
    registry.sync('android', new Map([['S1', 'offline']]));
    registry.readings.failed('android/S1', 'late', 0, 1, asked);
    expect(registry.get('android/S1')?.failures).toBe(0);
    expect(registry.isCurrent('android/S1', asked)).toBe(false);
  });
});

/** One step of what sources and inventories do to the registry. */
type Step =
  | { kind: 'sync'; listing: Array<[serial: string, state: string]> }
  | { kind: 'answered'; serial: string; udid: string; partial: boolean; stale: boolean }
  | { kind: 'failed'; serial: string; progress: boolean; stale: boolean }
  | { kind: 'gone'; serial: string }
  | { kind: 'facets'; serial: string; value: number };

const serial = fc.constantFrom('S1', 'S2', 'S3', '10.0.0.7:5555');
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('sync' as const),
    listing: fc.uniqueArray(fc.tuple(serial, fc.constantFrom('device', 'offline', 'unauthorized')), { selector: ([s]) => s, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant('answered' as const), serial, udid: fc.constantFrom('U1', 'U2', 'U3'), partial: fc.boolean(), stale: fc.boolean() }),
  fc.record({ kind: fc.constant('failed' as const), serial, progress: fc.boolean(), stale: fc.boolean() }),
  fc.record({ kind: fc.constant('gone' as const), serial }),
  fc.record({ kind: fc.constant('facets' as const), serial, value: fc.integer() }),
);

/** What the registry should hold of one record, kept by hand. */
interface Model {
  state: string;
  connection: number;
  failures: number;
  udid?: string;
  facets: { connection?: number; record?: number };
}

describe('DeviceRegistry, on random sequences', () => {
  it('keeps the udid index, the one failure count and the facets as a plain model says', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const registry = new DeviceRegistry();
        const model = new Map<string, Model>();
        const device = new Map<string, number>();
        let now = 0;
        const listing = (): Map<string, string> => new Map([...model].map(([s, m]) => [s, m.state]));
        const sync = (next: Map<string, string>): void => {
          registry.sync('android', next);
          for (const s of [...model.keys()]) if (!next.has(s)) model.delete(s);
          for (const [s, state] of next) {
            const m = model.get(s);
            if (!m) model.set(s, { state, connection: 0, failures: 0, facets: {} });
            else if (m.state !== state) Object.assign(m, { state, connection: m.connection + 1, failures: 0, facets: { record: m.facets.record } });
          }
        };
        for (const s of steps) {
          now += 1_000;
          const key = `android/${'serial' in s ? s.serial : ''}`;
          const m = 'serial' in s ? model.get(s.serial) : undefined;
          switch (s.kind) {
            case 'sync':
              sync(new Map(s.listing));
              break;
            case 'gone': {
              const next = listing();
              next.delete(s.serial);
              sync(next);
              break;
            }
            case 'answered': {
              const connection = (m?.connection ?? 0) - (s.stale ? 1 : 0);
              registry.readings.answered(key, info(s.udid), now, now, s.partial ? 'cut short' : undefined, connection);
              if (m && !s.stale) {
                m.udid = s.udid;
                m.failures = s.partial ? m.failures + 1 : 0;
              }
              break;
            }
            case 'failed': {
              const connection = (m?.connection ?? 0) - (s.stale ? 1 : 0);
              registry.readings.failed(key, 'missed its deadline', now, now, connection, s.progress);
              if (m && !s.stale) m.failures = s.progress ? 1 : m.failures + 1;
              break;
            }
            case 'facets':
              registry.facet(CONNECTION).set(key, s.value);
              registry.facet(RECORD).set(key, s.value);
              registry.facet(DEVICE).set(key, s.value);
              device.set(key, s.value);
              if (m) m.facets = { connection: s.value, record: s.value };
              break;
          }
          // The records are the model's, with the one failure count each.
          expect(new Map(registry.list('android').map((r) => [r.serial, [r.state, r.connection, r.failures, r.udid]]))).toEqual(
            new Map([...model].map(([sn, x]) => [sn, [x.state, x.connection, x.failures, x.udid]])),
          );
          // The udid index names exactly the records that carry each udid.
          for (const udid of ['U1', 'U2', 'U3']) {
            const want = [...model].filter(([, x]) => x.udid === udid).map(([sn]) => `android/${sn}`);
            expect(
              registry
                .byUdid(udid)
                .map((r) => r.key)
                .sort(),
            ).toEqual(want.sort());
            // The readings' own index too: a flapping phone's gone keys leave nothing behind it.
            expect([...registry.readings.keysOf(udid)].sort()).toEqual(want.sort());
          }
          // A reading lives exactly as long as its record.
          for (const sn of ['S1', 'S2', 'S3', '10.0.0.7:5555']) expect(registry.readings.of(`android/${sn}`) !== undefined, sn).toBe(model.has(sn));
          // Facets: by connection and by record only while it lasts; by the stable key always.
          for (const sn of ['S1', 'S2', 'S3', '10.0.0.7:5555']) {
            const k = `android/${sn}`;
            const x = model.get(sn);
            expect(registry.facet(CONNECTION).get(k)).toBe(x?.facets.connection);
            expect(registry.facet(RECORD).get(k)).toBe(x?.facets.record);
            expect(registry.facet(DEVICE).get(k)).toBe(device.get(k));
          }
          expect(registry.size).toBe(model.size);
        }
      }),
      { numRuns: 300 },
    );
  });
});
