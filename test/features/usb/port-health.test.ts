import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { attribute } from '../../../src/features/usb/attribution.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { parseKernelLogLine } from '../../../src/features/usb/kernel-line.js';
import { healthCell, healthLine, portHealth, worstPorts } from '../../../src/features/usb/port-health.js';
import { addEvent, emptyRecord, linkPort, type PortRecord } from '../../../src/features/usb/port-record.js';

// A port's health as `list` and `doctor` show it, from records built of
// kernel lines: the recorded enumeration failures of aioc-122.dmesg (port
// 2-3, see fixtures/README.md) and synthetic lines in the same form.

const NOON = Date.UTC(2026, 10, 24, 12, 0, 0);

function feed(record: PortRecord, lines: string[], at: number): void {
  for (const line of lines) {
    const event = classifyUsbLine(parseKernelLogLine(line)?.text ?? line);
    if (event) addEvent(record, event, at);
  }
}

const recorded = readFileSync(new URL('fixtures/aioc-122.dmesg', import.meta.url), 'utf8')
  .split('\n')
  .filter(Boolean);
const verdictsOf = (record: PortRecord, now = NOON) => attribute(record, { now });

describe('portHealth and its cell', () => {
  it('a port without failures is ok; one the record does not know is ok too', () => {
    const record = emptyRecord();
    feed(record, ['usb 1-1.2: new high-speed USB device number 5 using xhci_hcd', 'usb 1-1.2: SerialNumber: R58A'], NOON);
    expect(healthCell(portHealth(record, verdictsOf(record), '1-1.2', NOON))).toBe('1-1.2 ok');
    expect(healthCell(portHealth(record, verdictsOf(record), '3-4', NOON))).toBe('3-4 ok');
  });

  it("one kind is named with its count, and the layer the verdict blames: a port failing with three phones is the port's", () => {
    const record = emptyRecord();
    for (const [i, serial] of ['R58A', 'R58B', 'R58C'].entries()) {
      feed(record, [`usb 1-1.4.2: new high-speed USB device number ${i} using xhci_hcd`, `usb 1-1.4.2: SerialNumber: ${serial}`], NOON);
      feed(
        record,
        Array.from({ length: i === 0 ? 6 : 4 }, () => 'usb 1-1.4.2: device descriptor read/64, error -71'),
        NOON,
      );
    }
    const health = portHealth(record, verdictsOf(record), '1-1.4.2', NOON);
    expect(health).toMatchObject({ total: 14, phones: 3 });
    expect(healthCell(health)).toBe('1-1.4.2 14 enum failures/2d (port)');
    expect(healthLine(health)).toEqual({
      finding: 'USB port 1-1.4.2: 14 enumeration failures today and yesterday (UTC) with 3 different phones',
      advice:
        'port 1-1.4.2: 14 enumeration failures today and yesterday (UTC) with 3 different phones: the cable or the hub port, not the phone; swap the cable first, then move the phone to another hub port',
    });
  });

  it('the recorded failures of one phone on one port: counted, no layer blamed yet', () => {
    const record = emptyRecord();
    feed(record, recorded, NOON);
    const health = portHealth(record, verdictsOf(record), '2-3', NOON);
    expect(health.total).toBeGreaterThanOrEqual(2);
    expect(health.verdict).toBeUndefined();
    expect(healthCell(health)).toBe(`2-3 ${health.total} enum failures/2d`);
    expect(healthLine(health).advice).toMatch(/^no layer to blame yet/);
  });

  it('several kinds are one count; a phone that fails on two ports adb placed it on is named the phone on each', () => {
    const record = emptyRecord();
    for (const port of ['1-1.2', '2-1.3']) {
      // adb listed it on each (its usb path): the evidence a device cannot forge.
      linkPort(record, port, 'udid-bad', ['USBBAD01', 'udid-bad'], NOON);
      feed(
        record,
        [
          `usb ${port}: new high-speed USB device number 4 using xhci_hcd`,
          `usb ${port}: SerialNumber: USBBAD01`,
          `usb ${port}: device descriptor read/64, error -71`,
          `usb ${port}: reset high-speed USB device number 4 using xhci_hcd`,
        ],
        NOON,
      );
    }
    expect(healthCell(portHealth(record, verdictsOf(record), '2-1.3', NOON))).toBe('2-1.3 2 failures/2d (phone)');
  });

  it('one failure is said in the singular: a hub that failed its ports together once each', () => {
    const record = emptyRecord();
    for (const port of ['1-1.1', '1-1.2']) feed(record, [`usb ${port}: device descriptor read/64, error -71`], NOON);
    expect(healthCell(portHealth(record, verdictsOf(record), '1-1.1', NOON))).toBe('1-1.1 1 enum failure/2d (hub)');
    feed(record, ['usb 1-1.2: reset high-speed USB device number 4 using xhci_hcd'], NOON);
    expect(healthCell(portHealth(record, verdictsOf(record), '1-1.2', NOON))).toBe('1-1.2 2 failures/2d (hub)');
  });

  it('failures older than yesterday (UTC) are not counted', () => {
    const record = emptyRecord();
    feed(record, ['usb 1-1.2: device descriptor read/64, error -71'], NOON - 2 * 86_400_000);
    expect(healthCell(portHealth(record, verdictsOf(record), '1-1.2', NOON))).toBe('1-1.2 ok');
  });
});

describe('worstPorts', () => {
  it('the most failures first, ports without failures left out, at most n', () => {
    const record = emptyRecord();
    feed(record, ['usb 1-1.1: new high-speed USB device number 2 using xhci_hcd'], NOON);
    feed(
      record,
      Array.from({ length: 3 }, () => 'usb 1-1.2: device descriptor read/64, error -71'),
      NOON,
    );
    feed(
      record,
      Array.from({ length: 5 }, () => 'usb 1-1.3: device descriptor read/64, error -71'),
      NOON,
    );
    feed(record, ['usb 1-1.4: device descriptor read/64, error -71'], NOON);
    expect(worstPorts(record, verdictsOf(record), NOON, 2).map((h) => [h.port, h.total])).toEqual([
      ['1-1.3', 5],
      ['1-1.2', 3],
    ]);
  });
});
