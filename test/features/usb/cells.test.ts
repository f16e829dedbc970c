import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import type { DeviceSnapshot } from '../../../src/devices/snapshot.js';
import { classifyUsbLine } from '../../../src/features/usb/classify.js';
import { usbFeature } from '../../../src/features/usb/feature.js';
import { attribute } from '../../../src/features/usb/attribution.js';
import { addEvent, emptyRecord } from '../../../src/features/usb/port-record.js';
import { PortRecordFile, USB_PORTS_FILE } from '../../../src/features/usb/store.js';
import { systemClock } from '../../../src/util/clock.js';
import { captureLogger } from '../../log/capture.js';
import { featureContext } from '../../support/feature-bed.js';

// The USB layer's `list` cells in a one-shot command: the layer is not
// started, so it reads the record the daemon saved in the state directory
// (built here from kernel lines in the form of the recorded ones), and finds
// a phone where its source places it: adb's usb path, or usbmuxd's location
// (bus and device number, which the sysfs tree built here maps to a port);
// never by a serial sysfs shows, which any device may give.

const info = (udid: string): DeviceInfo => ({ udid, serialNumber: udid, platformName: 'Android' }) as DeviceInfo;
const record = (serial: string, usb?: string, location?: number): DeviceSnapshot => ({
  key: `android/${serial}`,
  platform: 'android',
  serial,
  state: 'device',
  changedSeq: 0,
  connection: 1,
  failures: 0,
  probing: false,
  ...(usb ? { usb: { usb } } : {}),
  ...(location !== undefined ? { usb: { location } } : {}),
});

function lab(): { stateDir: string; sysfs: string } {
  const stateDir = mkdtempSync(join(tmpdir(), 'usb-cells-'));
  const sysfs = join(stateDir, 'sysfs');
  mkdirSync(join(sysfs, '1-1.3'), { recursive: true });
  writeFileSync(join(sysfs, '1-1.3', 'serial'), 'TCP00001\n');
  mkdirSync(join(sysfs, '1-1.6'), { recursive: true });
  writeFileSync(join(sysfs, '1-1.6', 'serial'), '00008030001A2B3C\n');
  writeFileSync(join(sysfs, '1-1.6', 'devnum'), '7\n');
  const saved = emptyRecord();
  const now = Date.now();
  for (const serial of ['R58A', 'R58B']) {
    for (const line of [
      'usb 1-1.4.2: new high-speed USB device number 5 using xhci_hcd',
      `usb 1-1.4.2: SerialNumber: ${serial}`,
      'usb 1-1.4.2: device descriptor read/64, error -71',
      'usb 1-1.4.2: device descriptor read/64, error -71',
    ])
      addEvent(saved, classifyUsbLine(line)!, now);
  }
  new PortRecordFile(join(stateDir, USB_PORTS_FILE), captureLogger().logger).save({ record: saved });
  return { stateDir, sysfs };
}

describe("the USB layer's list cells", () => {
  it("the port adb names, or the one usbmuxd locates, with its health from the daemon's saved record; never the port sysfs shows a serial on", () => {
    const { stateDir, sysfs } = lab();
    const feature = usbFeature(
      featureContext({
        usb: { kernelLog: '/dev/kmsg', sysfsRoot: sysfs },
        stateDir,
        logger: captureLogger().logger,
        clock: systemClock,
      }),
    );
    // Inside list's own USB column (issue 61: one USB column, not three).
    expect(feature.columns?.()).toEqual([{ key: 'usbPort', title: 'USB PORT', inside: 'USB' }]);
    expect(feature.cells?.(info('R58C'), record('R58C', '1-1.4.2'))).toEqual({ usbPort: '1-1.4.2 4 enum failures/2d (port)' });
    // usbmuxd's LocationID (1 << 16 | 7): bus 1, device 7, which sysfs has on 1-1.6.
    expect(feature.cells?.({ ...info('00008030-001A2B3C'), platformName: 'iOS' }, record('00008030-001A2B3C', undefined, (1 << 16) | 7))).toEqual({
      usbPort: '1-1.6 ok',
    });
    // A phone adb reaches over the network: sysfs shows its serial on 1-1.3, but any device may give any serial.
    expect(feature.cells?.(info('TCP00001'), record('127.0.0.1:5555'))).toEqual({});
    // Off USB: nothing, so the table shows "-".
    expect(feature.cells?.(info('ELSEWHERE'), record('127.0.0.1:5556'))).toEqual({});
  });

  it("names a controller by the saved record's bus lines where sysfs does not, as the daemon does: both of its buses are one controller", () => {
    // One controller's USB 2 and USB 3 buses (coreos/bugs#1019's lines), a hub on each, every port of both failing: the
    // daemon blames the controller. A sysfs without the buses' usbN links names neither bus.
    const stateDir = mkdtempSync(join(tmpdir(), 'usb-cells-'));
    const sysfs = join(stateDir, 'sysfs');
    mkdirSync(sysfs);
    const saved = emptyRecord();
    const now = Date.now();
    const lines = [1, 2].map((bus) => `xhci_hcd 0000:00:14.0: new USB bus registered, assigned bus number ${bus}`);
    for (const port of ['1-1.2', '2-1.3'])
      for (const serial of ['R58A', 'R58B'])
        lines.push(
          `usb ${port}: new high-speed USB device number 5 using xhci_hcd`,
          `usb ${port}: SerialNumber: ${serial}`,
          `usb ${port}: device descriptor read/64, error -71`,
        );
    for (const line of lines) addEvent(saved, classifyUsbLine(line)!, now);
    new PortRecordFile(join(stateDir, USB_PORTS_FILE), captureLogger().logger).save({ record: saved });
    // The daemon's verdicts: sysfs's name of a bus, none here, else the record's (layer.ts).
    expect(attribute(saved, { now, controllerOfBus: () => undefined }).map((v) => `${v.layer} ${v.subject}`)).toEqual(['controller 0000:00:14.0']);
    const feature = usbFeature(
      featureContext({ usb: { kernelLog: '/dev/kmsg', sysfsRoot: sysfs }, stateDir, logger: captureLogger().logger, clock: systemClock }),
    );
    expect(feature.cells?.(info('R58C'), record('R58C', '1-1.2'))).toEqual({ usbPort: '1-1.2 2 enum failures/2d (controller)' });
  });

  it("puts on a one-shot report (once) the evidence the daemon's report gives, from its saved record, as the cell does", () => {
    const { stateDir, sysfs } = lab();
    const feature = usbFeature(
      featureContext({ usb: { kernelLog: '/dev/kmsg', sysfsRoot: sysfs }, stateDir, logger: captureLogger().logger, clock: systemClock }),
    );
    const saved = new PortRecordFile(join(stateDir, USB_PORTS_FILE), captureLogger().logger).load()!.record;
    const [verdict] = attribute(saved, { now: Date.now(), controllerOfBus: () => undefined });
    expect(verdict).toMatchObject({ layer: 'port', subject: '1-1.4.2' });
    expect(feature.notes?.(record('R58C', '1-1.4.2'), [])).toEqual([`USB: ${verdict!.evidence}`]);
    // A phone on another port: nothing.
    expect(feature.notes?.(record('R58D', '1-1.5'), [])).toEqual([undefined]);
  });

  it("a one-shot's read of a saved record that is not the agent's: no USB word on the report, one line naming the file, which it leaves for the daemon", () => {
    const { stateDir, sysfs } = lab();
    const file = join(stateDir, USB_PORTS_FILE);
    writeFileSync(file, '{"record": [1, 2');
    const log = captureLogger();
    const feature = usbFeature(featureContext({ usb: { kernelLog: '/dev/kmsg', sysfsRoot: sysfs }, stateDir, logger: log.logger, clock: systemClock }));
    expect(feature.notes?.(record('R58C', '1-1.4.2'), [])).toEqual([undefined]);
    // Its health was not read: the port alone, never "ok".
    expect(feature.cells?.(info('R58C'), record('R58C', '1-1.4.2'))).toEqual({ usbPort: '1-1.4.2' });
    expect(log.lines().filter((l) => String(l.msg).includes(file))).toHaveLength(1);
    expect(readFileSync(file, 'utf8')).toBe('{"record": [1, 2');
  });

  it('with the kernel log off, the port alone: its health is not known', () => {
    const { stateDir, sysfs } = lab();
    const feature = usbFeature(
      featureContext({
        usb: { kernelLog: '', sysfsRoot: sysfs },
        stateDir,
        logger: captureLogger().logger,
        clock: systemClock,
      }),
    );
    expect(feature.cells?.(info('R58C'), record('R58C', '1-1.4.2'))).toEqual({ usbPort: '1-1.4.2' });
  });

  it('with both settings off, no column', () => {
    const { stateDir } = lab();
    const feature = usbFeature(
      featureContext({
        usb: { kernelLog: '', sysfsRoot: '' },
        stateDir,
        logger: captureLogger().logger,
        clock: systemClock,
      }),
    );
    expect(feature.columns?.()).toEqual([]);
    expect(usbFeature(featureContext()).columns?.(), 'without a state directory: nothing read').toEqual([]);
  });
});
