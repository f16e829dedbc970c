import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import fc from 'fast-check';
import { addEvent, boundRecord, emptyRecord, MAX_RECORD_BYTES, type PortRecord } from '../../../src/features/usb/port-record.js';
import { PortRecordFile } from '../../../src/features/usb/store.js';
import { captureLogger } from '../../log/capture.js';

// The record per port in the state directory: kept across a restart, and a
// file that is not one the agent wrote (a hand edit, another version) never
// stops the start.

describe('PortRecordFile', () => {
  it('keeps the record and the last kernel record read across a save and a load', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-store-'));
    const file = new PortRecordFile(join(dir, 'usb-ports.json'), captureLogger().logger);
    const record = emptyRecord();
    addEvent(record, classifyUsbLine('usb 1-1.4.2: device descriptor read/64, error -71')!, Date.UTC(2026, 10, 24));
    expect(file.save({ record, source: 'boot /dev/kmsg', seq: 41 })).toBe(true);
    expect(file.load()).toEqual({ record, source: 'boot /dev/kmsg', seq: 41 });
  });

  it('starts empty, with one line, from a file that is not its JSON; keeps what is valid of a hand-edited one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-store-'));
    const path = join(dir, 'usb-ports.json');
    const log = captureLogger();
    const file = new PortRecordFile(path, log.logger);
    writeFileSync(path, '{"record": [1, 2');
    expect(file.load()).toBeUndefined();
    expect(log.lines().filter((l) => String(l.msg).includes('is not one the agent wrote'))).toHaveLength(1);
    writeFileSync(
      path,
      JSON.stringify({
        record: {
          ports: {
            '1-2': { days: { '2026-11-24': { failures: { reset: 2, bogus: 5, 'over-current': 'x' }, serials: ['A', 3], failingSerials: [] } }, seenAt: 1 },
            '../etc': { days: {} },
          },
          controllers: { '0000:00:14.0': { days: { 'not-a-day': {} }, seenAt: 1 } },
        },
      }),
    );
    expect(file.load()?.record).toEqual({
      ports: { '1-2': { days: { '2026-11-24': { failures: { reset: 2 }, serials: ['A'], failingSerials: [] } }, seenAt: 1 } },
      hubs: {},
      controllers: { '0000:00:14.0': { days: {}, seenAt: 1 } },
      buses: {},
      links: {},
    });
  });
});

describe('the record per port is never thrown away whole (issue 60)', () => {
  it('a record an older version wrote (15 MB: 512 ports over a week, 32 serials of 128 characters a port and day) is read back and cut to the bound: the newest days kept', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-store-'));
    const path = join(dir, 'usb-ports.json');
    const days = Array.from({ length: 7 }, (_, i) => `2026-11-${String(18 + i).padStart(2, '0')}`);
    const serials = (port: number, day: number, k: string): string[] => Array.from({ length: 16 }, (_, i) => `${k}${port}-${day}-${i}-`.padEnd(128, 'x'));
    const ports: Record<string, unknown> = {};
    for (let p = 0; p < 512; p++)
      ports[`1-${(p >> 4) + 1}.${(p & 15) + 1}`] = {
        days: Object.fromEntries(
          days.map((day, d) => [day, { failures: { 'enumeration-failed': 3 }, serials: serials(p, d, 'S'), failingSerials: serials(p, d, 'F') }]),
        ),
        seenAt: Date.UTC(2026, 10, 24) + p,
      };
    writeFileSync(path, JSON.stringify({ record: { ports, controllers: {} }, source: 'boot /dev/kmsg', seq: 7 }));
    const log = captureLogger();
    const loaded = new PortRecordFile(path, log.logger).load()!;
    expect(log.lines()).toEqual([]);
    expect(loaded.seq).toBe(7);
    expect(JSON.stringify(loaded.record).length).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    const kept = new Set(Object.values(loaded.record.ports).flatMap((e) => Object.keys(e.days)));
    expect(kept.has('2026-11-24')).toBe(true);
    expect(kept.has('2026-11-18')).toBe(false);
    expect(Object.keys(loaded.record.ports)).toHaveLength(512);
  });

  it('property: a bounded record is within its bound, and what it lost is its oldest days first, then the ports seen longest ago', () => {
    const record = fc.record({
      ports: fc.dictionary(
        fc.integer({ min: 1, max: 40 }).map((n) => `1-${n}`),
        fc.record({
          days: fc.dictionary(
            fc.integer({ min: 1, max: 9 }).map((d) => `2026-11-0${d}`),
            fc.record({
              failures: fc.constant({ reset: 1 }),
              serials: fc.array(fc.string({ maxLength: 40 }), { maxLength: 6 }),
              failingSerials: fc.constant<string[]>([]),
            }),
            { minKeys: 1 },
          ),
          seenAt: fc.integer({ min: 0, max: 1_000 }),
        }),
      ),
      max: fc.integer({ min: 200, max: 20_000 }),
    });
    fc.assert(
      fc.property(record, ({ ports, max }) => {
        const r = { ...emptyRecord(), ports: structuredClone(ports) } as PortRecord;
        const daysBefore = [...new Set(Object.values(ports).flatMap((e) => Object.keys(e.days)))].sort();
        boundRecord(r, max);
        const size = Buffer.byteLength(JSON.stringify(r));
        const daysAfter = [...new Set(Object.values(r.ports).flatMap((e) => Object.keys(e.days)))].sort();
        expect(size).toBeLessThanOrEqual(max);
        // The days kept are the newest of those there were.
        expect(daysAfter).toEqual(daysBefore.slice(daysBefore.length - daysAfter.length));
        // Ports dropped with one day left are those seen longest ago.
        if (daysAfter.length <= 1) {
          const keptSeen = Object.values(r.ports).map((e) => e.seenAt);
          const droppedSeen = Object.keys(ports)
            .filter((p) => !(p in r.ports) && Object.keys(ports[p]!.days).includes(daysBefore.at(-1)!))
            .map((p) => ports[p]!.seenAt);
          if (keptSeen.length && droppedSeen.length) expect(Math.max(...droppedSeen)).toBeLessThanOrEqual(Math.min(...keptSeen));
        }
      }),
    );
  });
});
