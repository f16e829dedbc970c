import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { limited } from '../../../src/log/limited.js';
import { DEFAULT_RATE_LIMIT } from '../../../src/log/rate-limit.js';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { kindsOf, type OwedDevice } from '../../../src/devices/presence.js';
import { annotateAll } from '../../../src/devices/feature.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { OFF_SOURCE, type OffSource } from '../../../src/devices/off-source.js';
import { usbFeature } from '../../../src/features/usb/feature.js';
import { UsbLayer } from '../../../src/features/usb/layer.js';
import { onUsbOffList, rememberListed, type ListedPhone } from '../../../src/features/usb/off-adb.js';
import { emptyRecord, linkPort } from '../../../src/features/usb/port-record.js';
import { PortRecordFile, USB_PORTS_FILE } from '../../../src/features/usb/store.js';
import type { DeviceSnapshot } from '../../../src/devices/snapshot.js';
import { storedDevice } from '../../../src/report/stored-device.js';
import { systemClock } from '../../../src/util/clock.js';
import { captureLogger } from '../../log/capture.js';
import { platformNames } from '../../../src/agent/platforms.js';
import { featureContext } from '../../support/feature-bed.js';
import type { UsbInterface } from '../../../src/platforms/source.js';

// A phone adb stops listing while the kernel still has it on a port (USB
// debugging turned off by an OS update, charge-only mode): reported
// UNAVAILABLE with what the USB layer says, never left to become UNPLUGGED.

const pixel: DeviceInfo = {
  udid: 'udid-pixel',
  serialNumber: '1A2B3C4D',
  state: 'device',
  status: 'AVAILABLE',
  message: 'an old note',
  platformName: 'ANDROID',
  platformVersion: '14',
  modelName: 'Pixel 8',
  isAndroid: true,
  isIos: false,
};

/** A sysfs tree with the phone's USB serial on port 1-1.4.2, and its interface entries as sysfs lays them out ("1-1.4.2/1-1.4.2:1.0/bInterfaceClass"). */
function sysfsTree(interfaces: Array<[string, string, string]> = []): string {
  const root = mkdtempSync(join(tmpdir(), 'usb-off-adb-'));
  mkdirSync(join(root, '1-1.4.2'));
  writeFileSync(join(root, '1-1.4.2', 'serial'), '1A2B3C4D\n');
  offerInterfaces(root, interfaces);
  return root;
}

function offerInterfaces(root: string, interfaces: Array<[string, string, string]>): void {
  interfaces.forEach(([c, sc, p], i) => {
    const dir = join(root, '1-1.4.2', `1-1.4.2:1.${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'bInterfaceClass'), `${c}\n`);
    writeFileSync(join(dir, 'bInterfaceSubClass'), `${sc}\n`);
    writeFileSync(join(dir, 'bInterfaceProtocol'), `${p}\n`);
  });
}

/** A listed phone's record as adb gives it: its serial, its udid once read, and its usb path (`adb devices -l`), which it cannot choose. */
function listedAt(d: DeviceInfo, usb: string | undefined, serial = d.serialNumber): DeviceSnapshot {
  return {
    key: `android/${serial}`,
    platform: 'android',
    serial,
    udid: d.udid,
    state: 'device',
    changedSeq: 0,
    connection: 1,
    failures: 0,
    probing: false,
    ...(usb ? { usb: { usb } } : {}),
  };
}

/**
 * The USB feature over a sysfs tree, as the agent wires it, and one report
 * as the reporter runs it: each listed phone's note asked (adb has it on
 * `places`' path, 1-1.4.2 unless said), the feature owes, the ledger is
 * asked once (`between` runs then), then the pass before the annotate ones
 * (annotateAll); `copy`: the report hands on a copy of each device.
 */
function usbBed(root: string, o: { copy?: boolean } = {}) {
  const log = captureLogger();
  const registry = new DeviceRegistry();
  const presence = registry.presence;
  const feature = usbFeature(
    featureContext({
      usb: { kernelLog: '', sysfsRoot: root },
      stateDir: root,
      logger: log.logger,
      clock: systemClock,
      registry,
    }),
  );
  // The last inventory of each device listed (the readings keep it in the agent), for the ledger's carried ones.
  const read = new Map<string, DeviceInfo>();
  const report = (present: DeviceInfo[], between?: () => void, records: DeviceSnapshot[] = present.map((d) => listedAt(d, '1-1.4.2'))): DeviceInfo[] => {
    for (const d of present) read.set(d.udid, d);
    for (const record of records) feature.notes!(record, records);
    feature.owe!({ absentIsGone: () => true, listed: (udid) => present.some((d) => d.udid === udid) });
    const { carried } = presence.report(present, 0, (d: OwedDevice) => read.get(d.udid));
    const devices = [...present, ...carried.map((c) => c.info)];
    between?.();
    return annotateAll([feature], o.copy ? devices.map((d) => ({ ...d })) : devices, kindsOf(carried));
  };
  const published = (): OffSource | undefined => registry.facet(OFF_SOURCE).get('udid-pixel');
  return { feature, presence, log, report, published };
}

describe('onUsbOffList', () => {
  it('adds a remembered phone sysfs shows on a port, and no other', () => {
    const added = onUsbOffList([pixel], new Map([['udid-pixel', ['1-1.4.2']]]), platformNames);
    expect(added).toEqual([
      {
        udid: 'udid-pixel',
        says: { state: 'no device', status: 'UNAVAILABLE' },
        why: 'on USB port 1-1.4.2 (the kernel enumerated it) but adb does not list it: USB debugging turned off (an OS update does it), or charge-only mode; not unplugged',
      },
    ]);
    expect(onUsbOffList([pixel], new Map([['OTHER', ['1-1.4.2']]]), platformNames)).toEqual([]);
  });

  it("blames usbmuxd for an iPhone, not an Android phone's settings", () => {
    const iphone: DeviceInfo = { ...pixel, udid: '00008030-001A2B3C', serialNumber: 'F2LX', platformName: 'IOS', isAndroid: false, isIos: true };
    const [added] = onUsbOffList([iphone], new Map([[iphone.udid, ['2-3']]]), platformNames);
    expect(added?.why).toBe(
      'on USB port 2-3 (the kernel enumerated it) but usbmuxd does not list it: usbmuxd did not take it (its log says why: a device it could not open or configure, ' +
        'or a stall on a USB 3 port): restart usbmuxd or replug the iPhone, into a USB 2 port if it happens again; not unplugged',
    );
  });

  it("names every port of a serial clones share, and lets no one port's interfaces speak for it", () => {
    const clone: DeviceInfo = { ...pixel, serialNumber: '0123456789ABCDEF' };
    const fastbootEverywhere = (): UsbInterface[] => [{ class: 'ff', subclass: '42', protocol: '03' }];
    const [added] = onUsbOffList([clone], new Map([['udid-pixel', ['1-1.3', '1-1.4']]]), platformNames, fastbootEverywhere);
    expect(added?.why).toBe(
      'on USB port 1-1.3 or 1-1.4 (the kernel enumerated it) but adb does not list it: USB debugging turned off (an OS update does it), or charge-only mode; not unplugged',
    );
    // On one port, that port's interfaces speak.
    expect(onUsbOffList([clone], new Map([['udid-pixel', ['1-1.3']]]), platformNames, fastbootEverywhere)[0]?.why).toContain('in its bootloader');
  });

  it('says nothing of a phone whose platform gives no words for it: it cannot name what lost it', () => {
    const other: DeviceInfo = { ...pixel, platformName: 'TIZEN', isAndroid: false };
    expect(onUsbOffList([other], new Map([['udid-pixel', ['1-1.4.2']]]), platformNames)).toEqual([]);
  });
});

describe('rememberListed', () => {
  it('keeps a phone that left its list and its port (an OS update rebooting it), one entry per USB serial, the least recently listed dropped past 512', () => {
    const remembered = new Map<string, ListedPhone>();
    rememberListed(remembered, [pixel]);
    rememberListed(remembered, []);
    expect([...remembered.keys()]).toEqual(['udid-pixel']);
    // The same phone listed under a new udid: the old one is not kept beside it.
    rememberListed(remembered, [{ ...pixel, udid: 'udid-pixel-new' }]);
    expect([...remembered.keys()]).toEqual(['udid-pixel-new']);
    // An UNPLUGGED entry is no listing.
    rememberListed(remembered, [{ ...pixel, udid: 'udid-gone', serialNumber: 'GONE', status: 'UNPLUGGED' }]);
    expect([...remembered.keys()]).toEqual(['udid-pixel-new']);
    rememberListed(
      remembered,
      Array.from({ length: 512 }, (_, i) => ({ ...pixel, udid: `udid-${i}`, serialNumber: `S${i}` })),
    );
    expect(remembered.size).toBe(512);
    expect(remembered.has('udid-pixel-new')).toBe(false);
  });

  it('keeps phones listed together: one that now gives the USB serial the other gave before, and clones sharing one', () => {
    const remembered = new Map<string, ListedPhone>();
    rememberListed(remembered, [{ ...pixel, udid: 'udid-x', serialNumber: 'S1' }]);
    rememberListed(remembered, [
      { ...pixel, udid: 'udid-x', serialNumber: 'T1' },
      { ...pixel, udid: 'udid-y', serialNumber: 'S1' },
    ]);
    expect([...remembered.keys()].sort()).toEqual(['udid-x', 'udid-y']);
    const clones = new Map<string, ListedPhone>();
    const clone = (udid: string): DeviceInfo => ({ ...pixel, udid, serialNumber: '0123456789ABCDEF' });
    rememberListed(clones, [clone('udid-a'), clone('udid-b')]);
    rememberListed(clones, [clone('udid-a'), clone('udid-b')]);
    expect([...clones.keys()].sort()).toEqual(['udid-a', 'udid-b']);
  });
});

describe('the USB feature over a sysfs tree', () => {
  it('keeps a phone off adb but on USB in the report, says so once, lets it go once it leaves the port, and knows it again back on the port without debugging', () => {
    const root = sysfsTree();
    const port = join(root, '1-1.4.2');
    const { feature, presence, log, report, published } = usbBed(root);
    expect(report([pixel])).toEqual([pixel]);
    const off = report([]);
    expect(off).toHaveLength(1);
    expect(off[0]).toMatchObject({ udid: 'udid-pixel', status: 'UNAVAILABLE', state: 'no device' });
    expect(presence.owed().map((e) => e.reason)).toEqual([{ kind: 'off-source', scope: 'usb' }]);
    expect(report([])).toHaveLength(1);
    expect(log.lines().filter((l) => String(l.msg).includes('adb does not list it'))).toHaveLength(1);
    // While adb comes back after a restart, a phone it has not listed again is not one whose debugging went off.
    feature.owe!({ absentIsGone: () => false, listed: () => false });
    expect(presence.report([], 0, () => pixel).carried).toEqual([]);
    // Carried for a reason nearer the phone (its source failed, and carries its last state): not off adb.
    presence.owe({ kind: 'source-failed', scope: 'android' }, [{ udid: pixel.udid }], { while: 'adb fails' });
    expect(report([])).toEqual([pixel]);
    expect(published()).toBeUndefined();
    presence.end({ kind: 'source-failed', scope: 'android' });
    rmSync(port, { recursive: true });
    expect(report([])).toEqual([]);
    // Back on its port without debugging (an OS update rebooted it, a report went by meanwhile): off adb, not gone.
    mkdirSync(port);
    writeFileSync(join(port, 'serial'), '1A2B3C4D\n');
    expect(report([])).toEqual([expect.objectContaining({ udid: 'udid-pixel', status: 'UNAVAILABLE', state: 'no device' })]);
  });
});

describe('the USB feature under a phone that flaps on and off adb on its port', () => {
  it("says the off-list line once per stay, and at most the limiter's burst a minute over all stays, the rest summed up", () => {
    const { report, log } = usbBed(sysfsTree());
    for (let i = 0; i < 15; i++) {
      report([pixel]);
      report([]);
    }
    const said = log.lines().filter((l) => String(l.msg).includes('adb does not list it'));
    expect(said).toHaveLength(DEFAULT_RATE_LIMIT.burst);
    // The summary, due at the window's end, is written at once when the limiter is flushed (as at stop).
    limited(log.logger).flush();
    expect(log.lines().filter((l) => String(l.msg).startsWith('5 more log lines of this kind'))).toHaveLength(1);
  });
});

describe('the USB feature over a sysfs tree with the interfaces a phone offers', () => {
  function offReport(root: string): { device: DeviceInfo | undefined; published: OffSource | undefined; count: (mode: string) => number | undefined } {
    const { feature, report, published } = usbBed(root);
    report([pixel]);
    const [device] = report([]);
    const offList = feature.metrics!().find((m) => m.name === 'device_agent_usb_off_list_devices');
    const count = (mode: string): number | undefined => offList?.samples.find((s) => s.labels?.source === 'adb' && s.labels.mode === mode)?.value;
    return { device, published: published(), count };
  }

  it('names the bootloader for a phone offering fastboot, another adb server for one offering adb, and debugging off for one offering MTP alone', () => {
    const fastboot = offReport(sysfsTree([['ff', '42', '03']]));
    expect(fastboot.device?.message).toBe(
      "on USB port 1-1.4.2 (the kernel enumerated it) but adb does not list it: it is in its bootloader, not in Android (it offers fastboot's USB interface, ff/42/03): " +
        'a failed update or flash, or a boot loop; `fastboot reboot` it, or flash it again; not unplugged',
    );
    expect(fastboot.published).toMatchObject({ port: '1-1.4.2', source: 'adb', mode: 'bootloader' });
    // /metrics counts it by source and by what the port shows, every pair served.
    expect([fastboot.count('bootloader'), fastboot.count('offers_source'), fastboot.count('port')]).toEqual([1, 0, 0]);
    // MTP and adb, as a Xiaomi offers them (protobom/protobom#351): its debugging is on.
    const held = offReport(
      sysfsTree([
        ['ff', 'ff', '00'],
        ['ff', '42', '01'],
      ]),
    );
    expect(held.device?.message).toContain(
      "but adb does not list it: its USB debugging is on (it offers adb's USB interface, ff/42/01) but this adb server has not taken it",
    );
    expect(held.published?.mode).toBe('offers-source');
    expect(held.count('offers_source')).toBe(1);
    const mtpOnly = offReport(sysfsTree([['ff', 'ff', '00']]));
    expect(mtpOnly.device?.message).toContain('but adb does not list it: USB debugging turned off (an OS update does it)');
    expect(mtpOnly.published).not.toHaveProperty('mode');
    expect([mtpOnly.count('port'), mtpOnly.count('bootloader')]).toEqual([1, 0]);
  });
  it("publishes for readiness what the phone's message says, though its port changes mid-report: each port is read once a report", () => {
    const root = sysfsTree([['ff', '42', '03']]);
    const { report, published } = usbBed(root);
    report([pixel]);
    // Out of its bootloader into Android between the ledger's answer and the annotate pass.
    const [device] = report([], () => offerInterfaces(root, [['ff', '42', '01']]));
    expect(device?.message).toContain('it is in its bootloader');
    expect(published()).toMatchObject({ mode: 'bootloader' });
    // The next report reads the port again.
    const [next] = report([]);
    expect(next?.message).toContain('its USB debugging is on');
    expect(published()).toMatchObject({ mode: 'offers-source' });
  });
});

describe('the USB feature after a feature that copies every device', () => {
  it('still knows the phones the ledger carried for it, by udid: it says them, and remembers the others as listed', () => {
    const { log, report } = usbBed(sysfsTree(), { copy: true });
    report([pixel]);
    expect(report([]).map((d) => d.udid)).toEqual(['udid-pixel']);
    expect(log.lines().filter((l) => String(l.msg).includes('adb does not list it'))).toHaveLength(1);
    // Listed again: not carried, so not said; off again later, said again.
    report([pixel]);
    report([]);
    expect(log.lines().filter((l) => String(l.msg).includes('adb does not list it'))).toHaveLength(2);
  });
});

describe('after a restart: the devices an earlier run reported', () => {
  it('a phone whose debugging went off while the agent was down is known on its port from the first report; one gone from USB, or sent UNPLUGGED before, is not', () => {
    const root = sysfsTree();
    const registry = new DeviceRegistry();
    const presence = registry.presence;
    const layer = new UsbLayer(featureContext({ usb: { kernelLog: '', sysfsRoot: root }, stateDir: root, clock: systemClock, registry }));
    // The daemon's record per port, as it saved it: adb had the phone on 1-1.4.2 (its usb path).
    const saved = emptyRecord();
    linkPort(saved, '1-1.4.2', 'udid-pixel', ['1A2B3C4D', 'udid-pixel'], Date.now());
    new PortRecordFile(join(root, USB_PORTS_FILE), captureLogger().logger).save({ record: saved });
    // As reported-devices.json gives them back: identity only; and what the cloud was told of them, no inventory having been read this run.
    const earlier = [
      pixel,
      { ...pixel, udid: 'udid-away', serialNumber: 'AWAY0001' },
      { ...pixel, udid: 'udid-old', serialNumber: '1A2B3C4D', status: 'UNPLUGGED' },
    ].map((d) => storedDevice(JSON.parse(JSON.stringify(d)))!);
    const told = (d: OwedDevice) => earlier.find((e) => e.udid === d.udid);
    const report = (present: DeviceInfo[]): DeviceInfo[] => {
      layer.oweOnUsb({ absentIsGone: () => true, listed: (udid) => present.some((d) => d.udid === udid) });
      const { carried } = presence.report(present, 0, told);
      return layer.withPhonesOnUsb([...present, ...carried.map((c) => c.info)], kindsOf(carried));
    };
    layer.rememberEarlier(earlier);
    const first = report([]);
    expect(first.map((d) => d.udid)).toEqual(['udid-pixel']);
    expect(first[0]).toMatchObject({ serialNumber: '1A2B3C4D', modelName: 'Pixel 8', state: 'no device', status: 'UNAVAILABLE' });
    expect(first[0]!.message).toMatch(/^on USB port 1-1\.4\.2 \(the kernel enumerated it\) but adb does not list it: /);
    // Listed again this run: the listing wins, and the earlier word is not added beside it.
    expect(report([pixel])).toEqual([pixel]);
  });
});

describe("a device that claims another phone's identity does not take its port (issue 60)", () => {
  it("a hub whose serial is a phone's udid does not keep that phone UNAVAILABLE once it left: only the port adb placed it on counts", () => {
    const root = sysfsTree();
    const { report } = usbBed(root);
    report([pixel]);
    // The phone leaves its port; a hub on 2-1 gives the phone's udid as its serial.
    rmSync(join(root, '1-1.4.2'), { recursive: true });
    mkdirSync(join(root, '2-1'));
    writeFileSync(join(root, '2-1', 'serial'), 'udid-pixel\n');
    writeFileSync(join(root, '2-1', 'bDeviceClass'), '09\n');
    expect(report([])).toEqual([]);
  });

  it("a hub plugged into the phone's port, giving the phone's serial, is no phone: a hub is never one", () => {
    const root = sysfsTree();
    const { report } = usbBed(root);
    report([pixel]);
    // The phone leaves 1-1.4.2; a hub giving its serial takes the port.
    writeFileSync(join(root, '1-1.4.2', 'bDeviceClass'), '09\n');
    expect(report([])).toEqual([]);
  });

  it("a gadget giving the serial of a phone adb never placed on a port (over the network) does not put it on the gadget's port", () => {
    const root = sysfsTree();
    const { report } = usbBed(root);
    // adb reaches the phone over the network: no usb path; the gadget on 1-1.4.2 gives its serial.
    report([pixel], undefined, [listedAt(pixel, undefined, '192.168.1.20:5555')]);
    expect(report([])).toEqual([]);
  });

  it("a phone whose udid is the other's adb serial, a dash added or not, does not make that phone go UNPLUGGED off adb on its port", () => {
    // Control: any other udid. Then the dashed form and the exact one: identities are compared exactly.
    for (const udid of ['9Z8Y-7X6W', '1A2B-3C4D', '1A2B3C4D']) {
      const { report } = usbBed(sysfsTree());
      const other: DeviceInfo = { ...pixel, udid, serialNumber: '192.168.1.30:5555' };
      report([pixel, other], undefined, [listedAt(pixel, '1-1.4.2'), listedAt(other, undefined)]);
      // adb loses the phone on 1-1.4.2 (its debugging went off); the other stays listed, report after report.
      for (let i = 0; i < 3; i++) {
        expect(
          report([other], undefined, [listedAt(other, undefined)]).find((d) => d.udid === pixel.udid),
          `${udid}, report ${i}`,
        ).toMatchObject({
          status: 'UNAVAILABLE',
        });
      }
    }
  });

  it("an Android phone whose udid is another's serial with a dash added is not kept on its old port once that other phone is there; an iPhone is", () => {
    const { report } = usbBed(sysfsTree());
    const dashed: DeviceInfo = { ...pixel, udid: '1A2B-3C4D', serialNumber: '1A2B-3C4D' };
    report([dashed], undefined, [listedAt(dashed, '1-1.4.2')]);
    // Unplugged; the phone whose serial is 1A2B3C4D (as sysfs shows on 1-1.4.2) takes the port.
    expect(report([pixel]).map((d) => d.udid)).toEqual([pixel.udid]);
    // An iPhone enumerates with its udid without usbmuxd's dash: off usbmuxd on its port, it is carried.
    const root = sysfsTree();
    writeFileSync(join(root, '1-1.4.2', 'serial'), '00008030001A2B3C\n');
    const ios = usbBed(root);
    const iphone: DeviceInfo = { ...pixel, udid: '00008030-001A2B3C', serialNumber: 'F2LX', platformName: 'IOS', isAndroid: false, isIos: true };
    ios.report([iphone], undefined, [{ ...listedAt(iphone, '1-1.4.2', iphone.udid), platform: 'ios' }]);
    expect(ios.report([])).toEqual([expect.objectContaining({ udid: iphone.udid, status: 'UNAVAILABLE' })]);
  });

  it('a twin giving the same udid does not make the real phone on its port go UNPLUGGED when adb loses it', () => {
    const root = sysfsTree();
    const { report } = usbBed(root);
    const twin: DeviceInfo = { ...pixel, serialNumber: 'TWIN0001', modelName: 'Twin' };
    // Both listed, the report holding one entry per udid (the twin's here); adb has the real one on 1-1.4.2, the twin on 2-2.
    report([twin], undefined, [listedAt(pixel, '1-1.4.2'), listedAt(twin, '2-2')]);
    // Both gone from adb (the real phone's debugging off), the real phone still on its port.
    expect(report([], undefined, [])).toEqual([expect.objectContaining({ udid: 'udid-pixel', status: 'UNAVAILABLE' })]);
    expect(report([], undefined, [])[0]!.message).toMatch(/^on USB port 1-1\.4\.2 /);
  });
});
