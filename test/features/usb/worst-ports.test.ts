import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPortRecord, worstPortItems } from '../../../src/features/usb/worst-ports.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { addEvent, emptyRecord, type PortRecord } from '../../../src/features/usb/port-record.js';
import { USB_PORTS_FILE } from '../../../src/features/usb/store.js';
import { createLogger } from '../../../src/log/logger.js';

// The worst ports of the record the daemon keeps in the state directory,
// built here from kernel lines in the form of the recorded ones
// (test/features/usb/fixtures/).

const NOON = Date.UTC(2026, 10, 24, 12, 0, 0);
const logger = createLogger({ level: 'silent' });

function feed(record: PortRecord, lines: string[], at = NOON): void {
  for (const line of lines) {
    const event = classifyUsbLine(line);
    if (event) addEvent(record, event, at);
  }
}

function stateDir(record?: PortRecord): string {
  const dir = mkdtempSync(join(tmpdir(), 'da-state-'));
  if (record) writeFileSync(join(dir, USB_PORTS_FILE), JSON.stringify({ record }));
  return dir;
}

describe('worstPortItems', () => {
  it('the three worst ports, each with the layer blamed and what to do; a port failing with three phones is the cable or the port', () => {
    const record = emptyRecord();
    for (const [i, serial] of ['R58A', 'R58B', 'R58C'].entries()) {
      feed(record, [`usb 1-1.4.2: new high-speed USB device number ${i} using xhci_hcd`, `usb 1-1.4.2: SerialNumber: ${serial}`]);
      feed(
        record,
        Array.from({ length: 4 }, () => 'usb 1-1.4.2: device descriptor read/64, error -71'),
      );
    }
    feed(record, [
      'usb 2-1: new high-speed USB device number 2 using xhci_hcd',
      'usb 2-1: SerialNumber: R58D',
      'usb 2-1: device descriptor read/64, error -71',
    ]);
    feed(record, ['usb 3-1: reset high-speed USB device number 2 using xhci_hcd', 'usb 3-1: reset high-speed USB device number 2 using xhci_hcd']);
    feed(
      record,
      Array.from({ length: 3 }, () => 'usb 3-2: reset high-speed USB device number 2 using xhci_hcd'),
    );
    const dir = stateDir(record);
    const items = worstPortItems(readPortRecord(dir, logger), NOON, '', dir);
    expect(items.map((i) => i.finding)).toEqual([
      'USB port 1-1.4.2: 12 enumeration failures today and yesterday (UTC) with 3 different phones',
      'USB port 3-2: 3 resets today and yesterday (UTC)',
      'USB port 3-1: 2 resets today and yesterday (UTC)',
    ]);
    expect(items[0]).toMatchObject({ status: 'warn' });
    expect(items[0]!.advice).toMatch(/the cable or the hub port, not the phone; swap the cable first/);
    // Every port of bus 3's root hub failing within minutes: the hub, not each port.
    expect(items[1]!.advice).toMatch(/^hub usb3: all 2 of its ports/);
  });

  it("names a controller by the record's bus lines where sysfs does not, as the daemon does: both of its buses are one controller", () => {
    // One controller's USB 2 and USB 3 buses (coreos/bugs#1019's lines), a hub on each, every port of both failing.
    const record = emptyRecord();
    feed(
      record,
      [1, 2].map((bus) => `xhci_hcd 0000:00:14.0: new USB bus registered, assigned bus number ${bus}`),
    );
    for (const port of ['1-1.2', '2-1.3'])
      for (const serial of ['R58A', 'R58B'])
        feed(record, [
          `usb ${port}: new high-speed USB device number 5 using xhci_hcd`,
          `usb ${port}: SerialNumber: ${serial}`,
          `usb ${port}: device descriptor read/64, error -71`,
        ]);
    const dir = stateDir(record);
    const items = worstPortItems(readPortRecord(dir, logger), NOON, '', dir);
    expect(items.map((i) => i.advice?.split(':')[0])).toEqual(['controller 0000', 'controller 0000']);
    expect(items[0]!.advice).toMatch(/^controller 0000:00:14\.0: every port on its 2 hubs failed/);
  });

  it('a record without failures in the window is one ok line; no record yet says where it will be', () => {
    const record = emptyRecord();
    feed(record, ['usb 1-1.2: device descriptor read/64, error -71'], NOON - 3 * 86_400_000);
    feed(record, ['usb 1-1.3: new high-speed USB device number 2 using xhci_hcd', 'usb 1-1.3: SerialNumber: R58E'], NOON);
    const dir = stateDir(record);
    expect(worstPortItems(readPortRecord(dir, logger), NOON, '', dir)).toEqual([
      { status: 'ok', finding: `USB ports: no failures today or yesterday (UTC) on the 2 ports in ${join(dir, USB_PORTS_FILE)}` },
    ]);
    const empty = stateDir();
    expect(readPortRecord(empty, logger)).toBeUndefined();
    expect(worstPortItems(undefined, NOON, '', empty)).toEqual([
      { status: 'ok', finding: `USB ports: no record yet in ${join(empty, USB_PORTS_FILE)} (the daemon writes it as it reads the kernel's messages)` },
    ]);
  });
});
