import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyUsbLine, hubOf, speedFallback, type UsbEvent } from '../../../src/features/usb/classify.js';
import { parseDmesgLine, parseKmsgRecord } from '../../../src/features/usb/kernel-line.js';

// Real kernel lines quoted in public reports (fixtures/README.md names each
// source), read as dmesg or journal lines, and /dev/kmsg records.

function eventsOf(file: string): Array<UsbEvent | undefined> {
  const text = readFileSync(new URL(`fixtures/${file}`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const parsed = file.endsWith('.kmsg') ? parseKmsgRecord(line) : parseDmesgLine(line);
      return parsed && classifyUsbLine(parsed.text);
    });
}

describe('classifyUsbLine on real lines', () => {
  it('enumeration failures, named by the port, root-hub ports brought to the same path (skuep/AIOC#122)', () => {
    expect(eventsOf('aioc-122.dmesg')).toEqual([
      { kind: 'new-device', port: '2-3', speed: 'full-speed' },
      { kind: 'enumeration-failed', port: '2-3' },
      undefined,
      { kind: 'enumeration-failed', port: '2-3' },
      { kind: 'enumeration-failed', port: '2-3' },
    ]);
  });

  it('journal lines, a port behind hubs (raspberrypi/linux#4743)', () => {
    expect(eventsOf('rpi-linux-4743.journal')).toEqual([
      { kind: 'new-device', port: '1-1.1.3.1', speed: 'low-speed' },
      { kind: 'enumeration-failed', port: '1-1.1.3.1' },
      undefined,
      { kind: 'enumeration-failed', port: '1-1.1.3.1' },
    ]);
  });

  it('a controller that died, then its devices gone (raspberrypi/linux#3404)', () => {
    expect(eventsOf('rpi-linux-3404.dmesg')).toEqual([
      { kind: 'controller-died', controller: '0000:01:00.0' },
      { kind: 'controller-died', controller: '0000:01:00.0' },
      { kind: 'disconnect', port: '1-1' },
      { kind: 'disconnect', port: '1-1.3' },
    ]);
  });

  it("the controller's device limit (pop-os/linux#307)", () => {
    expect(eventsOf('pop-os-linux-307.dmesg')).toEqual([
      { kind: 'controller-died', controller: '0000:06:00.0' },
      { kind: 'controller-limit', controller: '0000:06:00.0' },
      { kind: 'controller-limit', port: '9-1' },
    ]);
  });

  it('bandwidth (AdnanHodzic/displaylink-debian#104)', () => {
    expect(eventsOf('displaylink-debian-104.dmesg')).toEqual([{ kind: 'controller-limit', port: '1-3.3.2.1' }, undefined]);
  });

  it('a new device and its serial (raspberrypi/linux#3366)', () => {
    expect(eventsOf('rpi-linux-3366.dmesg')).toEqual([
      { kind: 'new-device', port: '1-1.3.4.7', speed: 'high-speed' },
      { kind: 'serial', port: '1-1.3.7.5', serial: 'A106OY49' },
    ]);
  });

  it('a port disabled by its hub (GlasgowEmbedded/libfx2#2)', () => {
    expect(eventsOf('libfx2-2.dmesg')).toEqual([
      { kind: 'hub-port-error', port: '1-6' },
      { kind: 'disconnect', port: '1-6' },
      { kind: 'new-device', port: '1-6', speed: 'high-speed' },
    ]);
  });

  it('over-current (StarLabsLtd/firmware#140)', () => {
    expect(eventsOf('starlabs-firmware-140.journal')).toEqual([{ kind: 'over-current', port: '1-6' }]);
  });

  it('speed fallback (igorpecovnik/Cubietruck-Debian#58)', () => {
    expect(eventsOf('cubietruck-debian-58.dmesg')).toEqual([
      { kind: 'new-device', port: '4-1', speed: 'full-speed' },
      { kind: 'slow-speed', port: '4-1' },
    ]);
  });
});

describe('speed fallback on a port that can do more', () => {
  it('a full-speed device on an xHCI root port, and the kernel saying so (viveris/uMTP-Responder#83)', () => {
    expect(eventsOf('umtp-responder-83.dmesg')).toEqual([
      { kind: 'new-device', port: '1-3', speed: 'full-speed' },
      { kind: 'slow-speed', port: '1-3' },
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("from sysfs: a phone below 480 Mb/s on a port of 480 or more is the cable or the plug; at its port's speed, or a high-speed phone, it is not", () => {
    expect(speedFallback('1-1.4.2', 12, 480)).toBe(
      'port 1-1.4.2: phone at 12 Mb/s on a 480 Mb/s port: a charge-grade or USB 1 cable, or a worn plug; swap the cable first',
    );
    expect(speedFallback('1-3', 1.5, 480)).toMatch(/^port 1-3: phone at 1\.5 Mb\/s on a 480 Mb\/s port: /);
    expect(speedFallback('1-1.4.2', 480, 480)).toBeUndefined();
    // A USB 2 phone under a SuperSpeed hub is on the hub's USB 2 half: nothing to say.
    expect(speedFallback('2-1.1', 480, 5000)).toBeUndefined();
    // A full-speed port (an old USB 1.1 hub): the phone runs as fast as the port.
    expect(speedFallback('3-1', 12, 12)).toBeUndefined();
    expect(speedFallback('3-1', 12, Number.NaN)).toBeUndefined();
  });
});

describe('parseKmsgRecord', () => {
  it("reads the kernel's records, skips continuation lines and what a program wrote", () => {
    expect(eventsOf('synthetic.kmsg')).toEqual([
      { kind: 'reset', port: '1-1.4.2' },
      undefined,
      undefined,
      { kind: 'hub-port-error', port: '1-1.4' },
      { kind: 'over-current', port: '1-2' },
      { kind: 'controller-limit', port: '1-1.2' },
      undefined,
    ]);
  });

  it('keeps the sequence number and decodes escapes', () => {
    expect(parseKmsgRecord('6,42,100,-;usb 1-2: SerialNumber: a\\x20b\n')).toEqual({ seq: 42, tsUs: 100, text: 'usb 1-2: SerialNumber: a b' });
    expect(parseKmsgRecord('garbage')).toBeUndefined();
  });
});

describe('classifyUsbLine on other lines', () => {
  it('says nothing of interfaces, root hubs or other drivers', () => {
    expect(classifyUsbLine('usb 1-1.4.2:1.0: USB disconnect, device number 3')).toBeUndefined();
    expect(classifyUsbLine('usb usb1: New USB device found, idVendor=1d6b')).toBeUndefined();
    expect(classifyUsbLine('e1000e 0000:00:1f.6 eno1: NIC Link is Up')).toBeUndefined();
    expect(classifyUsbLine('')).toBeUndefined();
  });

  it('hubOf: the parent hub of a port, the root hub for a root port', () => {
    expect(hubOf('1-1.4.2')).toBe('1-1.4');
    expect(hubOf('1-3')).toBe('usb1');
  });
});
