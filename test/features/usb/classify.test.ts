import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyUsbLine, speedFallback, type UsbEvent } from '../../../src/features/usb/classify.js';
import { hubOfPort } from '../../../src/util/usb-path.js';
import { parseKernelLogLine, parseKmsgRecord } from '../../../src/features/usb/kernel-line.js';

// Real kernel lines quoted in public reports (fixtures/README.md names each
// source), read as dmesg or journal lines, and /dev/kmsg records.

/** Each line's event, without the catalogue id (messages.test.ts checks those). */
function eventsOf(file: string): Array<Omit<UsbEvent, 'id' | 'said'> | undefined> {
  const text = readFileSync(new URL(`fixtures/${file}`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const parsed = file.endsWith('.kmsg') ? parseKmsgRecord(line) : parseKernelLogLine(line);
      const event = parsed && classifyUsbLine(parsed.text);
      if (!event) return undefined;
      const { id: _id, said: _said, ...rest } = event;
      return rest;
    });
}

const cause = 'cause' as const;
const consequence = 'consequence' as const;
const fact = 'fact' as const;

describe('classifyUsbLine on real lines', () => {
  it('enumeration failures, named by the port, root-hub ports brought to the same path (skuep/AIOC#122)', () => {
    expect(eventsOf('aioc-122.dmesg')).toEqual([
      { kind: 'new-device', role: fact, port: '2-3', speed: 'full-speed' },
      { kind: 'enumeration-failed', role: cause, port: '2-3' },
      // The power cycle and the giving up are what the kernel does after the failures: not failures again.
      { kind: 'enumeration-failed', role: consequence, port: '2-3' },
      { kind: 'enumeration-failed', role: cause, port: '2-3' },
      { kind: 'enumeration-failed', role: consequence, port: '2-3' },
    ]);
  });

  it('journal lines, a port behind hubs (raspberrypi/linux#4743)', () => {
    expect(eventsOf('rpi-linux-4743.journal')).toEqual([
      { kind: 'new-device', role: fact, port: '1-1.1.3.1', speed: 'low-speed' },
      { kind: 'enumeration-failed', role: cause, port: '1-1.1.3.1' },
      { kind: 'enumeration-failed', role: consequence, port: '1-1.1.3.1' },
      { kind: 'enumeration-failed', role: cause, port: '1-1.1.3.1' },
    ]);
  });

  it('a controller that died, then its devices gone (raspberrypi/linux#3404)', () => {
    // Two lines of one death: the record keeps it as one (port-record.ts), the classifier reads each line as what it says.
    expect(eventsOf('rpi-linux-3404.dmesg')).toEqual([
      { kind: 'controller-died', role: cause, controller: '0000:01:00.0' },
      { kind: 'controller-died', role: cause, controller: '0000:01:00.0' },
      { kind: 'disconnect', role: fact, port: '1-1' },
      { kind: 'disconnect', role: fact, port: '1-1.3' },
    ]);
  });

  it("the controller's device limit (pop-os/linux#307)", () => {
    // "Max number of devices" follows every slot error whatever its cause, and "couldn't allocate" the controller's refusal: consequences.
    expect(eventsOf('pop-os-linux-307.dmesg')).toEqual([
      { kind: 'controller-died', role: cause, controller: '0000:06:00.0' },
      { kind: 'controller-limit', role: consequence, controller: '0000:06:00.0' },
      { kind: 'controller-limit', role: consequence, port: '9-1' },
    ]);
  });

  it('bandwidth (AdnanHodzic/displaylink-debian#104)', () => {
    expect(eventsOf('displaylink-debian-104.dmesg')).toEqual([
      { kind: 'controller-limit', role: cause, port: '1-3.3.2.1' },
      { kind: 'controller-limit', role: consequence, port: '1-3.3.2.1' },
    ]);
  });

  it('a new device and its serial (raspberrypi/linux#3366)', () => {
    expect(eventsOf('rpi-linux-3366.dmesg')).toEqual([
      { kind: 'new-device', role: fact, port: '1-1.3.4.7', speed: 'high-speed' },
      { kind: 'serial', role: fact, port: '1-1.3.7.5', serial: 'A106OY49' },
    ]);
  });

  it('a port disabled by its hub (GlasgowEmbedded/libfx2#2)', () => {
    expect(eventsOf('libfx2-2.dmesg')).toEqual([
      { kind: 'hub-port-error', role: cause, port: '1-6' },
      { kind: 'disconnect', role: fact, port: '1-6' },
      { kind: 'new-device', role: fact, port: '1-6', speed: 'high-speed' },
    ]);
  });

  it('over-current (StarLabsLtd/firmware#140)', () => {
    expect(eventsOf('starlabs-firmware-140.journal')).toEqual([{ kind: 'over-current', role: cause, port: '1-6' }]);
  });

  it('speed fallback (igorpecovnik/Cubietruck-Debian#58)', () => {
    expect(eventsOf('cubietruck-debian-58.dmesg')).toEqual([
      { kind: 'new-device', role: fact, port: '4-1', speed: 'full-speed' },
      { kind: 'slow-speed', role: cause, port: '4-1' },
    ]);
  });
});

describe('speed fallback on a port that can do more', () => {
  it('a full-speed device on an xHCI root port, and the kernel saying so (viveris/uMTP-Responder#83)', () => {
    expect(eventsOf('umtp-responder-83.dmesg')).toEqual([
      { kind: 'new-device', role: fact, port: '1-3', speed: 'full-speed' },
      { kind: 'slow-speed', role: cause, port: '1-3' },
      // A descriptor the device gives wrong and the kernel fixes: not in the catalogue (a device's quirk, not a failure).
      undefined,
      { kind: 'note', role: fact, port: '1-3' },
      { kind: 'note', role: fact, port: '1-3' },
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

describe('classifyUsbLine on lines read from the kernel source', () => {
  it("lines built from the source where no public report quotes them: 7.2's first config read, the reset command timeout of 4.9 to 7.2", () => {
    // drivers/usb/core/config.c usb_get_configuration() (7.2) and drivers/usb/host/xhci.c xhci_discover_or_reset_device().
    expect(classifyUsbLine('usb 1-1.4.2: config index 0 descriptor too short (asked for 9, got 2)')).toMatchObject({
      kind: 'enumeration-failed',
      role: cause,
      port: '1-1.4.2',
    });
    expect(classifyUsbLine('xhci_hcd 0000:00:14.0: Timeout waiting for reset device command')).toMatchObject({
      kind: 'controller-error',
      role: cause,
      controller: '0000:00:14.0',
    });
  });
});

describe('parseKmsgRecord', () => {
  it("reads the kernel's records, skips continuation lines and what a program wrote", () => {
    expect(eventsOf('synthetic.kmsg')).toEqual([
      { kind: 'reset', role: cause, port: '1-1.4.2' },
      undefined,
      undefined,
      { kind: 'hub-port-error', role: cause, port: '1-1.4' },
      { kind: 'over-current', role: cause, port: '1-2' },
      { kind: 'controller-limit', role: cause, port: '1-1.2' },
      undefined,
    ]);
  });

  it('keeps the sequence number and decodes escapes', () => {
    expect(parseKmsgRecord('6,42,100,-;usb 1-2: SerialNumber: a\\x20b\n')).toEqual({ seq: 42, tsUs: 100, text: 'usb 1-2: SerialNumber: a b', shape: 'kmsg' });
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

  it('hubOfPort: the parent hub of a port, the root hub for a root port', () => {
    expect(hubOfPort('1-1.4.2')).toBe('1-1.4');
    expect(hubOfPort('1-3')).toBe('usb1');
  });
});

describe("a hub's port errors, in their wording of 4.9 on and before it", () => {
  it('per port device ("usb 1-1.2.4-port3:"): cannot reset, Cannot enable, cannot disable; the hub\'s own status requests; the hub above (bareboat-necessities/lysmarine_gen#316)', () => {
    expect(eventsOf('lysmarine-gen-316.dmesg')).toEqual([
      { kind: 'hub-port-error', role: cause, port: '1-1.2.4.3' },
      { kind: 'hub-port-error', role: cause, port: '1-1.2.4.3' },
      { kind: 'hub-port-error', role: cause, port: '1-1.2.4.3' },
      { kind: 'hub-error', role: cause, hub: '1-1.2.4' },
      { kind: 'hub-error', role: cause, hub: '1-1.2.4' },
      { kind: 'hub-error', role: cause, hub: '1-1.2' },
    ]);
  });

  it('on two hubs, each named (ayufan-rock64/linux-build#112)', () => {
    expect(eventsOf('rock64-linux-build-112.dmesg')).toEqual([
      { kind: 'hub-error', role: cause, hub: '5-1' },
      { kind: 'hub-port-error', role: cause, port: '5-1.2' },
      { kind: 'hub-port-error', role: cause, port: '5-1.2' },
      { kind: 'hub-port-error', role: cause, port: '5-1.2' },
      { kind: 'hub-error', role: cause, hub: '5-1.4' },
      { kind: 'hub-port-error', role: cause, port: '5-1.4.3' },
    ]);
  });

  it('the older wordings, where the hub names the port in its text, on a root hub and on a hub (pages named in fixtures/README.md)', () => {
    expect(eventsOf('old-hub-wordings.syslog')).toEqual([
      { kind: 'hub-port-error', role: cause, port: '4-4' },
      { kind: 'enumeration-failed', role: consequence, port: '5-1' },
      { kind: 'enumeration-failed', role: consequence, port: '1-5.4' },
    ]);
    expect(classifyUsbLine('hub 1-1:1.0: cannot reset port 3 (err = -110)')).toMatchObject({ kind: 'hub-port-error', port: '1-1.3' });
    expect(classifyUsbLine('hub 1-0:1.0: connect-debounce failed, port 2 disabled')).toMatchObject({ kind: 'hub-port-error', port: '1-2' });
  });
});

describe('a controller: its limits, its death and what follows it, its removal', () => {
  it('a slot error with its completion code: a limit only for "No Slots Available Error" (genodelabs/genode#5066)', () => {
    expect(eventsOf('genode-5066.log')).toEqual([
      { kind: 'controller-limit', role: consequence, controller: '00:14.0' },
      { kind: 'controller-limit', role: consequence, controller: '00:14.0' },
      { kind: 'controller-limit', role: consequence, port: '1-1' },
    ]);
    expect(classifyUsbLine('xhci_hcd 0000:00:14.0: Error while assigning device slot ID: No Slots Available Error')).toMatchObject({
      kind: 'controller-limit',
      role: cause,
    });
  });

  it('a death as the kernel tells it, and the timeout after it (openwrt/openwrt#1565)', () => {
    expect(eventsOf('openwrt-1565.log')).toEqual([
      { kind: 'hub-port-error', role: cause, port: '3-1' },
      { kind: 'controller-died', role: cause, controller: 'f10f8000.usb3' },
      { kind: 'controller-died', role: cause, controller: 'f10f8000.usb3' },
      { kind: 'controller-died', role: cause, controller: 'f10f8000.usb3' },
      { kind: 'controller-error', role: cause, controller: 'f10f8000.usb3' },
      { kind: 'disconnect', role: fact, port: '2-1' },
      { kind: 'disconnect', role: fact, port: '2-1.2' },
    ]);
  });

  it('a removal (a dock unplugged): the failures after it are facts of the removal (intel/thunderbolt-software-user-space#16)', () => {
    expect(eventsOf('thunderbolt-software-16.dmesg')).toEqual([
      { kind: 'controller-removed', role: fact, controller: '0000:0c:00.0' },
      undefined,
      { kind: 'controller-died', role: cause, controller: '0000:0c:00.0' },
      { kind: 'controller-died', role: cause, controller: '0000:0c:00.0' },
      { kind: 'note', role: fact, controller: '0000:0c:00.0' },
    ]);
  });

  it('which buses a controller drives (coreos/bugs#1019)', () => {
    expect(eventsOf('coreos-bugs-1019.dmesg')).toEqual([
      { kind: 'bus-registered', role: fact, controller: '0000:00:14.0', bus: 1 },
      { kind: 'bus-registered', role: fact, controller: '0000:00:14.0', bus: 2 },
    ]);
  });
});

describe('the printed forms of a kernel line', () => {
  it('busybox syslog with a facility and the kernel time (Louisvdw/dbus-serialbattery#123), dmesg -H (SpenceKonde/ATTinyCore#451), dmesg -T (espressif/esp-usb#342)', () => {
    expect(eventsOf('dbus-serialbattery-123.syslog').map((e) => e?.port)).toEqual(['3-1', '3-1', '3-1']);
    expect(eventsOf('attinycore-451.dmesg-H')).toEqual([
      { kind: 'new-device', role: fact, port: '1-9.3.2.1', speed: 'low-speed' },
      { kind: 'hub-port-error', role: cause, port: '1-9.3.2.1' },
      { kind: 'enumeration-failed', role: consequence, port: '1-9.3.2.1' },
      { kind: 'enumeration-failed', role: cause, port: '1-9.3.2.1' },
    ]);
    expect(eventsOf('esp-usb-342.dmesg-T')[1]).toEqual({ kind: 'serial', role: fact, port: '3-9', serial: '74:4D:BD:A6:37:88' });
  });

  it("dmesg -r's level, dmesg -x's facility and level, and the journal's ISO, precise and monotonic forms", () => {
    const text = 'usb 1-2: device descriptor read/64, error -71';
    for (const line of [
      `<3>[   86.480463] ${text}`,
      `kern  :err   : [   86.480463] ${text}`,
      `2023-11-27T20:16:17+0100 host kernel: ${text}`,
      `Nov 27 20:16:17.123456 host kernel: ${text}`,
      `[  123.456789] host kernel: ${text}`,
    ])
      expect(parseKernelLogLine(line)?.text, line).toBe(text);
  });

  it('decodes /dev/kmsg escapes as UTF-8 bytes, never as one character each', () => {
    expect(parseKmsgRecord('6,1,1,-;usb 1-2: Product: caf\\xc3\\xa9')?.text).toBe('usb 1-2: Product: café');
  });
});
