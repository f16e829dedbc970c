import { describe, expect, it } from 'vitest';
import { attribute } from '../../../src/features/usb/attribution.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { addEvent, emptyRecord, MAX_PORTS, pruneRecord, type PortRecord } from '../../../src/features/usb/port-record.js';

const NOON = Date.UTC(2026, 10, 24, 12, 0, 0);

function feed(record: PortRecord, lines: string[], at: number): void {
  for (const line of lines) {
    const event = classifyUsbLine(line);
    if (event) addEvent(record, event, at);
  }
}

describe('attribute: the evidence a person can check', () => {
  it('a port that failed 14 times with 3 phones is the cable or the port', () => {
    const record = emptyRecord();
    for (const [i, serial] of ['R58A', 'R58B', 'R58C'].entries()) {
      feed(record, [`usb 1-1.4.2: new high-speed USB device number ${i} using xhci_hcd`, `usb 1-1.4.2: SerialNumber: ${serial}`], NOON);
      const n = i === 0 ? 6 : 4;
      feed(
        record,
        Array.from({ length: n }, () => 'usb 1-1.4.2: device descriptor read/64, error -71'),
        NOON + i * 3_600_000,
      );
    }
    expect(attribute(record, { now: NOON + 3 * 3_600_000 })).toEqual([
      {
        layer: 'port',
        subject: '1-1.4.2',
        ports: ['1-1.4.2'],
        evidence: 'port 1-1.4.2: 14 enumeration failures today and yesterday (UTC) with 3 different phones: the cable or the hub port, not the phone',
      },
    ]);
  });

  it("counts a replay's failures that its first record, taken as now, puts after midnight", () => {
    // A replay started at 23:00 UTC: two hours into the recording is tomorrow.
    const late = Date.UTC(2026, 10, 24, 23, 0, 0);
    const record = emptyRecord();
    feed(record, ['usb 1-2.1: device descriptor read/64, error -71'], late + 2 * 3_600_000);
    feed(record, ['usb 1-2.2: device descriptor read/64, error -71'], late + 2 * 3_600_000 + 1_000);
    expect(attribute(record, { now: late }).map((v) => `${v.layer} ${v.subject}`)).toEqual(['hub 1-2']);
  });

  it('failures older than yesterday are not held against anything', () => {
    const record = emptyRecord();
    feed(
      record,
      [
        'usb 1-2: SerialNumber: A',
        'usb 1-2: device descriptor read/64, error -71',
        'usb 1-2: SerialNumber: B',
        'usb 1-2: device descriptor read/64, error -71',
      ],
      NOON,
    );
    expect(attribute(record, { now: NOON + 2 * 86_400_000 })).toEqual([]);
  });
});

describe('the record per port is bounded', () => {
  it('drops days older than a week, and ports left without any', () => {
    const record = emptyRecord();
    feed(record, ['usb 1-2: device descriptor read/64, error -71'], NOON);
    feed(record, ['usb 1-3: device descriptor read/64, error -71'], NOON + 6 * 86_400_000);
    pruneRecord(record, NOON + 7 * 86_400_000);
    expect(Object.keys(record.ports)).toEqual(['1-3']);
  });

  it('keeps at most MAX_PORTS ports, the least recently seen dropped', () => {
    const record = emptyRecord();
    for (let i = 0; i <= MAX_PORTS; i++) feed(record, [`usb 1-${i + 1}: USB disconnect, device number 2`], NOON + i);
    expect(Object.keys(record.ports)).toHaveLength(MAX_PORTS);
    expect(record.ports['1-1']).toBeUndefined();
  });
});
