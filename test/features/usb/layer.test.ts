import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceSnapshot } from '../../../src/devices/snapshot.js';
import type { DeviceFeature } from '../../../src/devices/feature.js';
import { usbFeature } from '../../../src/features/usb/feature.js';
import { controllersOfBuses, interfacesOnPort, portsBySerial } from '../../../src/features/usb/sysfs.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';
import { featureContext } from '../../support/feature-bed.js';
import { createLogger } from '../../../src/log/logger.js';
import { carryClock } from '../../../src/log/limited.js';
import { readPortRecord, worstPortItems } from '../../../src/features/usb/worst-ports.js';
import { offAdbByInterfaces } from '../../../src/platforms/android/usb-interfaces.js';
import { USB_EVIDENCE } from '../../../src/devices/usb-evidence.js';
import { SharedParts } from '../../../src/util/shared-parts.js';

// The USB layer on real files: a recorded /dev/kmsg replayed and followed,
// the record kept in a state directory across a restart, a kernel log that
// cannot be read. The kernel log is a file here, as a lab replaying an
// incident gives it (usb.kernelLog). Its timers (the follower's poll, the
// settle before a verdict) run on virtual time, its reads on the real files.

function phone(serial: string, usb?: string): DeviceSnapshot {
  return {
    key: `android/${serial}`,
    platform: 'android',
    serial,
    state: 'device',
    changedSeq: 0,
    connection: 1,
    failures: 0,
    probing: false,
    ...(usb ? { usb: { usb } } : {}),
  };
}

/** 14 enumeration failures of port 1-1.4.2 with 3 phones, as /dev/kmsg records. */
function badPortRecords(firstSeq: number): string {
  const out: string[] = [];
  let seq = firstSeq;
  for (const [i, serial] of ['R58A', 'R58B', 'R58C'].entries()) {
    out.push(`6,${seq++},${seq * 1000},-;usb 1-1.4.2: new high-speed USB device number ${i + 5} using xhci_hcd`);
    out.push(`6,${seq++},${seq * 1000},-;usb 1-1.4.2: SerialNumber: ${serial}`);
    out.push(' SUBSYSTEM=usb');
    for (let n = 0; n < (i === 0 ? 6 : 4); n++) out.push(`3,${seq++},${seq * 1000},-;usb 1-1.4.2: device descriptor read/64, error -71`);
  }
  return `${out.join('\n')}\n`;
}

const started: DeviceFeature[] = [];
afterEach(async () => {
  for (const f of started.splice(0)) await f.stop?.();
});

/** The layer's timers on a time line of its own, its wall clock at today's; its logger's limit per cause on the same. */
function layer(usb: { kernelLog: string; sysfsRoot: string }, stateDir: string, logger = captureLogger()) {
  const time = new VirtualTime(Date.now());
  carryClock(logger.logger, time.clock());
  const feature = usbFeature(featureContext({ usb, stateDir, logger: logger.logger, clock: time.clock() }));
  started.push(feature);
  void feature.start?.();
  /**
   * Moves virtual time on a tenth of a second at a time, letting the real
   * reads of the kernel log end between steps, until the condition holds.
   */
  const until = async (condition: () => boolean, what: string): Promise<void> => {
    for (let step = 0; step < 600; step++) {
      if (condition()) return;
      await new Promise((r) => setTimeout(r, 1));
      time.advance(100);
    }
    throw new Error(`${what} did not hold within 60 s of virtual time`);
  };
  return { feature, lines: logger.lines, until, time };
}

function start(kernelLog: string, stateDir: string, logger = captureLogger()) {
  return layer({ kernelLog, sysfsRoot: join(stateDir, 'no-sysfs') }, stateDir, logger);
}

const note = (feature: DeviceFeature, device: DeviceSnapshot): string | undefined => feature.notes?.(device, [])[0];

describe('the USB layer on a replayed kernel log', () => {
  it("puts the port's evidence on the message of a phone on that port, logs it once, and keeps the record across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = join(dir, 'kmsg.rec');
    writeFileSync(log, badPortRecords(100));
    const first = start(log, dir);
    const onPort = phone('R58D', '1-1.4.2');
    await first.until(() => note(first.feature, onPort) !== undefined, 'the port verdict');
    expect(note(first.feature, onPort)).toBe(
      'USB: port 1-1.4.2: 14 enumeration failures today and yesterday (UTC) with 3 different phones: the cable or the hub port, not the phone',
    );
    expect(note(first.feature, phone('R58E', '2-1.3'))).toBeUndefined();
    expect(first.lines().filter((l) => String(l.msg).startsWith('port 1-1.4.2:'))).toHaveLength(1);
    // /metrics: the port's failures by kind, the verdict standing and logged once, by layer.
    const series = (name: string, labels: Record<string, string>): number | undefined =>
      first.feature.metrics!()
        .find((m) => m.name === name)
        ?.samples.find((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v))?.value;
    expect(series('device_agent_usb_port_failures_total', { port: '1-1.4.2', kind: 'enumeration_failed' })).toBe(14);
    expect(series('device_agent_usb_verdicts', { layer: 'port' })).toBe(1);
    expect(series('device_agent_usb_verdicts_total', { layer: 'port' })).toBe(1);
    expect(series('device_agent_usb_verdicts_total', { layer: 'hub' })).toBe(0);
    await first.feature.stop?.();
    expect(JSON.parse(readFileSync(join(dir, 'usb-ports.json'), 'utf8'))).toMatchObject({ seq: expect.any(Number) as unknown });

    // A restart on the same log counts none of its records twice, and follows what the kernel adds.
    const second = start(log, dir);
    await second.until(() => note(second.feature, onPort) !== undefined, 'the verdict after a restart');
    expect(note(second.feature, onPort)).toContain('14 enumeration failures');
    // The verdict stands, but the run before counted it: a restart is no new verdict for the alerts.
    const standing = (layer: string, name: string): number | undefined =>
      second.feature.metrics!()
        .find((m) => m.name === name)
        ?.samples.find((s) => s.labels?.layer === layer)?.value;
    expect([standing('port', 'device_agent_usb_verdicts'), standing('port', 'device_agent_usb_verdicts_total')]).toEqual([1, 0]);
    appendFileSync(log, '3,500,999999,-;usb 1-1.4.2: device descriptor read/64, error -71\n');
    await second.until(() => note(second.feature, onPort)?.includes('15 enumeration failures') === true, 'the appended record');
  });

  it('a replay replaced while followed, after a restart: the new recording counted from its start, whatever its record numbers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = join(dir, 'kmsg.rec');
    writeFileSync(log, badPortRecords(100));
    const first = start(log, dir);
    await first.until(() => note(first.feature, phone('R58D', '1-1.4.2')) !== undefined, 'the port verdict');
    await first.feature.stop?.();
    // The restart skips the records up to the one it kept (seq 135); the new recording numbers its own from 1.
    const second = start(log, dir);
    await second.until(() => note(second.feature, phone('R58D', '1-1.4.2')) !== undefined, 'the verdict after a restart');
    renameSync(log, `${log}.1`);
    writeFileSync(log, badPortRecords(1).replaceAll('1-1.4.2', '2-1.3'));
    await second.until(() => note(second.feature, phone('R58E', '2-1.3')) !== undefined, "the new recording's verdict");
    expect(note(second.feature, phone('R58E', '2-1.3'))).toContain('port 2-1.3: 14 enumeration failures');
  });

  it("says once that it cannot read the kernel's messages, and says nothing on devices", () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const { feature, lines } = start(join(dir, 'no-such-kmsg'), dir);
    const warnings = lines().filter((l) => String(l.msg).includes("cannot read the kernel's messages"));
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]!.msg)).toContain('usb.kernelLog');
    expect(note(feature, phone('R58D', '1-1.4.2'))).toBeUndefined();
  });

  it('says once what a usb.kernelLog that is no kernel log is (a directory named), reads nothing from it, and says nothing on devices', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const { feature, lines } = start(dir, dir);
    expect(lines().map((l) => String(l.msg))).toEqual([expect.stringMatching(new RegExp(`^usb\\.kernelLog ${dir} is a directory, not a kernel log: `))]);
    expect(note(feature, phone('R58D', '1-1.4.2'))).toBeUndefined();
  });

  it('reads nothing when usb.kernelLog is empty', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const { feature, lines } = start('', dir);
    expect(lines()).toEqual([]);
    // No kernel log, no series of it; sysfs is still read (usb.sysfsRoot), so its phones off their list are counted.
    expect(feature.metrics!().map((m) => m.name)).toEqual(['device_agent_usb_off_list_devices']);
  });
});

describe("the USB layer's word on devices behind a hub or a controller", () => {
  it('gives the hub verdict to a phone on any port of that hub, and the controller verdict to a phone on any of its buses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const controller = join(dir, 'devices', '0000:00:14.0');
    mkdirSync(join(controller, 'usb2'), { recursive: true });
    const sysfs = join(dir, 'bus');
    mkdirSync(sysfs);
    symlinkSync(join(controller, 'usb2'), join(sysfs, 'usb2'));
    const log = join(dir, 'kmsg.rec');
    const records = [
      'usb 1-1.1: SerialNumber: P1',
      'usb 1-1.2: SerialNumber: P2',
      'usb 1-1.1: device descriptor read/64, error -71',
      'usb 1-1.2: device not accepting address 9, error -71',
      'xhci_hcd 0000:00:14.0: xHCI host controller not responding, assume dead',
    ].map((text, i) => `3,${i + 1},${i * 1000},-;${text}`);
    writeFileSync(log, `${records.join('\n')}\n`);
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: sysfs }, dir);
    await until(() => note(feature, phone('P3', '1-1.3')) !== undefined, 'the hub verdict');
    expect(note(feature, phone('P3', '1-1.3'))).toMatch(
      /^USB: hub 1-1: all 2 of its ports \(1-1\.1, 1-1\.2\) failed within 10 min .*: the hub or its power supply$/,
    );
    expect(note(feature, phone('P4', '2-4'))).toMatch(
      /^USB: controller 0000:00:14\.0: the kernel found it dead once .*: the host controller, not the phones or hubs on it$/,
    );
    expect(note(feature, phone('P5', '3-1'))).toBeUndefined();
  });
  it('finds the port of an iPhone where usbmuxd locates it (bus and device number), and none for a phone adb reaches over the network, whatever serial sysfs shows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const sysfs = join(dir, 'bus');
    const onPort = (port: string, serial: string, devnum: number): void => {
      mkdirSync(join(sysfs, port), { recursive: true });
      writeFileSync(join(sysfs, port, 'serial'), `${serial}\n`);
      writeFileSync(join(sysfs, port, 'devnum'), `${devnum}\n`);
    };
    onPort('1-1.4.2', 'R58D', 5);
    // An iPhone enumerates with its udid without the dash; usbmuxd's LocationID is (bus << 16) | devnum.
    onPort('1-1.4.3', '00008030001A2B3C0E12802E', 9);
    const log = join(dir, 'kmsg.rec');
    writeFileSync(log, badPortRecords(100) + '3,200,300000,-;usb 1-1.4.3: SerialNumber: 00008030001A2B3C0E12802E\n');
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: sysfs }, dir);
    const overUsb = phone('R58D', '1-1.4.2');
    await until(() => note(feature, overUsb) !== undefined, 'the port verdict');
    // Over the network: sysfs shows its serial on 1-1.4.2, but any device may give any serial.
    expect(note(feature, { ...phone('127.0.0.1:5555'), udid: 'R58D' })).toBeUndefined();
    // The same port's hub fails on another port too: all of hub 1-1.4 at once.
    appendFileSync(log, '3,201,301000,-;usb 1-1.4.3: device descriptor read/64, error -71\n');
    const iPhone: DeviceSnapshot = {
      ...phone('00008030-001A2B3C0E12802E'),
      platform: 'ios',
      udid: '00008030-001A2B3C0E12802E',
      usb: { location: (1 << 16) | 9 },
    };
    await until(() => note(feature, iPhone) !== undefined, 'the hub verdict');
    expect(note(feature, iPhone)).toMatch(
      /^USB: hub 1-1\.4: all 2 of its ports \(1-1\.4\.2, 1-1\.4\.3\) failed within 10 min .*: the hub or its power supply$/,
    );
    expect(note(feature, phone('NOTONUSB'))).toBeUndefined();
  });
});

describe('a phone leaving its port', () => {
  it('is off USB at the next look after the kernel says it disconnected, not when the cached read of sysfs runs out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const sysfs = join(dir, 'bus');
    mkdirSync(join(sysfs, '1-1.2'), { recursive: true });
    writeFileSync(join(sysfs, '1-1.2', 'serial'), 'R58Q\n');
    const log = join(dir, 'kmsg.rec');
    writeFileSync(log, '6,1,1000,-;usb 1-1.2: SerialNumber: R58Q\n');
    const shared = new SharedParts();
    const time = new VirtualTime(Date.now());
    const logger = captureLogger();
    const feature = usbFeature(
      featureContext({ usb: { kernelLog: log, sysfsRoot: sysfs }, stateDir: dir, logger: logger.logger, clock: time.clock(), shared }),
    );
    started.push(feature);
    void feature.start?.();
    const usb = shared.get(USB_EVIDENCE)!;
    expect(usb.seen(['R58Q'])).toEqual({ enumerated: true, port: '1-1.2' });
    rmSync(join(sysfs, '1-1.2'), { recursive: true });
    appendFileSync(log, '6,2,2000,-;usb 1-1.2: USB disconnect, device number 7\n');
    // The kernel's line read (real reads of the file between steps of virtual time), well within the sysfs cell's 5 s.
    for (let step = 0; step < 40 && usb.seen(['R58Q'])?.enumerated !== false; step++) {
      await new Promise((r) => setTimeout(r, 5));
      time.advance(50);
    }
    expect(usb.seen(['R58Q'])).toMatchObject({ enumerated: false, port: '1-1.2', last: 'disconnected' });
  });

  it('is read afresh when its source stops listing it, before the kernel says anything', () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const sysfs = join(dir, 'bus');
    mkdirSync(join(sysfs, '1-1.3'), { recursive: true });
    writeFileSync(join(sysfs, '1-1.3', 'serial'), 'R58R\n');
    const shared = new SharedParts();
    const feature = usbFeature(
      featureContext({ usb: { kernelLog: join(dir, 'kmsg.rec'), sysfsRoot: sysfs }, stateDir: dir, clock: new VirtualTime(Date.now()).clock(), shared }),
    );
    const usb = shared.get(USB_EVIDENCE)!;
    expect(usb.seen(['R58R'])).toEqual({ enumerated: true, port: '1-1.3' });
    rmSync(join(sysfs, '1-1.3'), { recursive: true });
    feature.changed?.([{ key: 'android/R58R', serial: 'R58R', from: 'device' }]);
    // Not on a port in sysfs, and no word from the kernel yet: not known to be on USB.
    expect(usb.seen(['R58R'])).toBeUndefined();
  });
});

describe("the kernel's record times", () => {
  it("keep failures an hour apart in a replay from counting as a hub's ports failing at once", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = join(dir, 'kmsg.rec');
    const hour = 3_600_000_000;
    writeFileSync(
      log,
      [
        // A healthy port: not every port of the controller fails.
        `6,0,500,-;usb 1-3.1: SerialNumber: HEALTHY`,
        `3,1,1000,-;usb 1-1.1: device descriptor read/64, error -71`,
        `3,2,${hour},-;usb 1-1.2: device descriptor read/64, error -71`,
        // The same two ports of another hub, a second apart: at once.
        `3,3,${2 * hour},-;usb 1-2.1: device descriptor read/64, error -71`,
        `3,4,${2 * hour + 1_000_000},-;usb 1-2.2: device descriptor read/64, error -71`,
      ].join('\n') + '\n',
    );
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: '' }, dir);
    await until(() => note(feature, phone('P', '1-2.3')) !== undefined, 'the verdict on hub 1-2');
    expect(note(feature, phone('Q', '1-1.3'))).toBeUndefined();
  });
});

describe('controllersOfBuses', () => {
  it("names each bus's controller from the root hub's link, and nothing without sysfs", () => {
    const root = mkdtempSync(join(tmpdir(), 'usb-sysfs-'));
    const controller = join(root, 'devices', 'pci0000:00', '0000:00:14.0');
    mkdirSync(join(controller, 'usb1'), { recursive: true });
    mkdirSync(join(root, 'bus'));
    symlinkSync(join(controller, 'usb1'), join(root, 'bus', 'usb1'));
    mkdirSync(join(root, 'bus', 'usb2'));
    expect(controllersOfBuses(join(root, 'bus'))).toEqual(new Map([[1, '0000:00:14.0']]));
    expect(controllersOfBuses(join(root, 'missing'))).toEqual(new Map());
  });
});

describe('portsBySerial and interfacesOnPort', () => {
  it('gives every port of a serial (clones sharing one are on several), skips hubs and interfaces, and reads the interfaces of a port', () => {
    const root = mkdtempSync(join(tmpdir(), 'usb-sysfs-serials-'));
    const device = (port: string, serial?: string): void => {
      mkdirSync(join(root, port));
      if (serial !== undefined) writeFileSync(join(root, port, 'serial'), `${serial}\n`);
    };
    device('1-1');
    device('1-1.4', '0123456789ABCDEF');
    device('1-1.3', '0123456789ABCDEF');
    device('2-1', 'R58M12ABCDE');
    // An interface entry, as /sys/bus/usb/devices lists them beside the devices: not a port.
    device('2-1:1.0');
    const iface = join(root, '2-1', '2-1:1.0');
    mkdirSync(iface);
    writeFileSync(join(iface, 'bInterfaceClass'), 'ff\n');
    writeFileSync(join(iface, 'bInterfaceSubClass'), '42\n');
    writeFileSync(join(iface, 'bInterfaceProtocol'), '01\n');
    expect(portsBySerial(root)).toEqual(
      new Map([
        ['0123456789ABCDEF', ['1-1.3', '1-1.4']],
        ['R58M12ABCDE', ['2-1']],
      ]),
    );
    expect(interfacesOnPort(root, '2-1')).toEqual([{ class: 'ff', subclass: '42', protocol: '01' }]);
    expect(interfacesOnPort(root, '1-1.3')).toEqual([]);
    expect(portsBySerial(join(root, 'missing'))).toEqual(new Map());
  });
});

describe('interfacesOnPort on what a lab leaves behind', () => {
  it('skips an interface whose files are gone mid-read (the phone unplugged), and hands on garbage bytes, which no platform takes for a mode', () => {
    const root = mkdtempSync(join(tmpdir(), 'usb-sysfs-ifaces-'));
    const iface = (name: string, files: Record<string, string>): void => {
      mkdirSync(join(root, '1-1.3', name), { recursive: true });
      for (const [file, value] of Object.entries(files)) writeFileSync(join(root, '1-1.3', name, file), value);
    };
    iface('1-1.3:1.0', { bInterfaceClass: 'ff\n', bInterfaceSubClass: '42\n' });
    iface('1-1.3:1.1', { bInterfaceClass: 'zz\u0000\u00ff', bInterfaceSubClass: '42\n', bInterfaceProtocol: '03\n' });
    const read = interfacesOnPort(root, '1-1.3');
    expect(read).toEqual([{ class: 'zz\u0000\u00ff', subclass: '42', protocol: '03' }]);
    expect(offAdbByInterfaces(read)).toBeUndefined();
    expect(interfacesOnPort(root, '9-9')).toEqual([]);
  });
});

describe('a phone below its port’s speed, from sysfs', () => {
  it("puts the cable or the plug on the message of a phone at 12 Mb/s on a 480 Mb/s port, and nothing on one at the port's speed", () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-speed-'));
    const sysfs = join(dir, 'devices');
    const dev = (name: string, speed: string): void => {
      mkdirSync(join(sysfs, name), { recursive: true });
      writeFileSync(join(sysfs, name, 'speed'), `${speed}\n`);
    };
    dev('usb1', '480');
    dev('1-1', '480');
    dev('1-1.4', '480');
    dev('1-1.4.2', '12');
    dev('1-1.4.3', '480');
    dev('1-2', '12');
    const feature = usbFeature(
      featureContext({
        usb: { kernelLog: '', sysfsRoot: sysfs },
        stateDir: dir,
        logger: captureLogger().logger,
        clock: new VirtualTime(Date.now()).clock(),
      }),
    );
    expect(note(feature, phone('SLOW', '1-1.4.2'))).toBe(
      'USB: port 1-1.4.2: phone at 12 Mb/s on a 480 Mb/s port: a charge-grade or USB 1 cable, or a worn plug; swap the cable first',
    );
    expect(note(feature, phone('FAST', '1-1.4.3'))).toBeUndefined();
    // On a root hub's port: the root hub's own speed is the port's.
    expect(note(feature, phone('ROOT', '1-2'))).toMatch(/^USB: port 1-2: phone at 12 Mb\/s on a 480 Mb\/s port: /);
    expect(note(feature, phone('NOWHERE', '1-9'))).toBeUndefined();
  });
});

describe('the USB layer on what real hosts print (issue 60)', () => {
  const kmsgOf = (texts: string[], first = 1): string => `${texts.map((t, i) => `3,${first + i},${(first + i) * 1000},-;${t}`).join('\n')}\n`;

  it("a hub whose four ports fail together, in the per-port wording: one hub line, counted per port, the hub in each phone's message, in list and in doctor", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = join(dir, 'kmsg.rec');
    const ports = [1, 2, 3, 4].map((p) => `1-1.2.4.${p}`);
    writeFileSync(
      log,
      kmsgOf([
        ...ports.flatMap((port, i) => [`usb ${port}: new high-speed USB device number ${i + 5} using xhci_hcd`, `usb ${port}: SerialNumber: HUB4PH0${i}`]),
        ...[1, 2, 3, 4].flatMap((p) => [
          `usb 1-1.2.4-port${p}: cannot reset (err = -71)`,
          `usb 1-1.2.4-port${p}: Cannot enable. Maybe the USB cable is bad?`,
          `usb 1-1.2.4-port${p}: cannot disable (err = -71)`,
        ]),
      ]),
    );
    const captured = captureLogger();
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: '' }, dir, captured);
    await until(() => note(feature, phone('HUB4PH00', ports[0])) !== undefined, 'the hub verdict');
    for (const port of ports) expect(note(feature, phone('X', port))).toMatch(/^USB: hub 1-1\.2\.4: all 4 of its ports /);
    expect(captured.lines().filter((l) => String(l.msg).startsWith('hub 1-1.2.4:'))).toHaveLength(1);
    const failures = feature.metrics!().find((m) => m.name === 'device_agent_usb_port_failures_total')!;
    for (const port of ports) expect(failures.samples.find((x) => x.labels?.port === port && x.labels.kind === 'hub_port_error')?.value).toBe(3);
    expect(feature.cells?.({ udid: 'HUB4PH00' } as never, phone('HUB4PH00', ports[0]))).toEqual({ usbPort: '1-1.2.4.1 3 hub port errors/2d (hub)' });
    await feature.stop?.();
    const items = worstPortItems(readPortRecord(dir, captured.logger), Date.now(), '', dir);
    expect(items.map((i) => i.status)).toEqual(['warn', 'warn', 'warn']);
    expect(items[0]!.advice).toMatch(/^hub 1-1\.2\.4: all 4 of its ports/);
  });

  it("a controller's death: one death in its line, the slot and bandwidth errors after it no limit, no controller limit on any port in doctor", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const sysfs = join(dir, 'bus');
    const controller = join(dir, 'devices', '0000:01:00.0');
    mkdirSync(join(controller, 'usb1'), { recursive: true });
    mkdirSync(sysfs);
    symlinkSync(join(controller, 'usb1'), join(sysfs, 'usb1'));
    const log = join(dir, 'kmsg.rec');
    const hse = readFileSync(new URL('fixtures/rpi-linux-3404-hse.dmesg', import.meta.url), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^\[[^\]]*\] /, ''));
    writeFileSync(
      log,
      kmsgOf([
        'usb 1-1.2: SerialNumber: DEADPH01',
        ...hse,
        'xhci_hcd 0000:01:00.0: Error while assigning device slot ID',
        'xhci_hcd 0000:01:00.0: Max number of devices this xHCI host supports is 32.',
        "usb usb1-port2: couldn't allocate usb_device",
        'usb 1-1.2: Not enough bandwidth for new device state.',
        'xhci_hcd 0000:01:00.0: Error while assigning device slot ID',
        'xhci_hcd 0000:01:00.0: Max number of devices this xHCI host supports is 32.',
      ]),
    );
    const captured = captureLogger();
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: sysfs }, dir, captured);
    await until(() => captured.lines().some((l) => String(l.msg).startsWith('controller ')), 'the controller line');
    const lines = captured.lines().filter((l) => l.level === 'warn' || l.level === 40);
    expect(lines.map((l) => String(l.msg))).toEqual([
      'controller 0000:01:00.0: the kernel found it dead once ("WARNING: Host System Error") today and yesterday (UTC); ' +
        "the 11 failure lines under it after its death are that death's consequences, not counted: the host controller, not the phones or hubs on it",
    ]);
    expect(note(feature, phone('DEADPH01', '1-1.2'))).not.toMatch(/out of devices or bandwidth|controller limit/);
    await feature.stop?.();
    const doctor = worstPortItems(readPortRecord(dir, captured.logger), Date.now(), sysfs, dir);
    expect(doctor.map((i) => `${i.finding} ${i.advice ?? ''}`).join('\n')).not.toMatch(/controller limit|out of devices or bandwidth/);
  });

  it("over-current on one port lands on that port's phone only; on several ports of a hub, on the hub's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = join(dir, 'kmsg.rec');
    writeFileSync(
      log,
      kmsgOf([
        'usb 1-5: SerialNumber: HEALTHY1',
        'usb 1-6: SerialNumber: LOADED01',
        ...readFileSync(new URL('fixtures/starlabs-firmware-140.journal', import.meta.url), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => l.replace(/^.*kernel: /, '')),
      ]),
    );
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: '' }, dir);
    await until(() => note(feature, phone('LOADED01', '1-6')) !== undefined, 'the port verdict');
    expect(note(feature, phone('LOADED01', '1-6'))).toMatch(
      /^USB: port 1-6: over-current once .* the phone on it \(LOADED01\) or its cable draws more than the port gives, not the hub's supply$/,
    );
    expect(note(feature, phone('HEALTHY1', '1-5'))).toBeUndefined();
    appendFileSync(log, kmsgOf(['usb usb1-port5: over-current condition'], 100));
    await until(() => note(feature, phone('HEALTHY1', '1-5')) !== undefined, 'the hub verdict');
    expect(note(feature, phone('HEALTHY1', '1-5'))).toMatch(/^USB: hub usb1: over-current on ports 1-5 \(once\), 1-6 \(once\) .*: the hub's power supply/);
    expect(note(feature, phone('ELSE', '1-3'))).toMatch(/^USB: hub usb1: /);
  });

  it('a flood of kernel lines whose verdicts come and go: at most the per-cause limit of warnings a minute, and a summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = join(dir, 'kmsg.rec');
    // 600 ports (more than the record keeps), each failing with two phones: each a verdict of its own, ports dropped as others come.
    // A healthy phone on the bus: not every port of its controller fails, so each hub is a verdict of its own.
    const texts: string[] = [];
    for (let p = 0; p < 600; p++) {
      const port = `2-${(p >> 4) + 1}.${(p & 15) + 1}`;
      for (const serial of [`A${p}`, `B${p}`]) texts.push(`usb ${port}: SerialNumber: ${serial}`, `usb ${port}: device descriptor read/64, error -71`);
    }
    texts.push('usb 2-99: SerialNumber: HEALTHY2');
    writeFileSync(log, kmsgOf(texts));
    // Each line stamped with the virtual time it is written at, the rate limiter's clock: the reads are real I/O,
    // so on a busy machine the same lines spread over more virtual time, and the limit holds per window, not in all.
    let now = (): number => 0;
    const written: Array<{ line: Record<string, unknown>; at: number }> = [];
    const logger = createLogger({
      level: 'debug',
      pretty: false,
      destination: { write: (line: string) => written.push({ line: JSON.parse(line), at: now() }) },
    });
    const captured = { logger, lines: () => written.map((w) => w.line) };
    const { feature, until, time } = layer({ kernelLog: log, sysfsRoot: '' }, dir, captured);
    now = () => time.clock().monotonic();
    const verdicts = () => written.filter((w) => w.line.layer !== undefined);
    await until(() => verdicts().length > 0, 'the first verdict line');
    // Another burst a few seconds later: the verdicts change again.
    appendFileSync(
      log,
      kmsgOf(
        texts.map((t) => t.replace(/^usb 2-/, 'usb 3-')),
        5_000,
      ),
    );
    // The summary comes a window (a minute) after the first line held back.
    const summary = (): boolean => captured.lines().some((l) => /more log lines? of this kind/.test(String(l.msg)));
    await until(() => verdicts().length >= 10, 'ten verdict lines');
    await until(summary, 'the summary').catch(() => until(summary, 'the summary'));
    // Dozens of hubs whose every port failed, twice over: at most 10 lines of a layer's verdicts (one cause) in any
    // minute, and one summary of the rest. Read as it comes, bus 3 is every port failed until its healthy phone's
    // line, so a busy machine may see its controller's verdict come and go: a cause of its own, with a limit of its own.
    for (const { line, at } of verdicts()) {
      const same = verdicts().filter((v) => v.line.layer === line.layer && v.at >= at && v.at < at + 60_000);
      expect(same.length, `${String(line.layer)} lines from ${at}`).toBeLessThanOrEqual(10);
    }
    expect(verdicts().filter((v) => v.line.layer === 'hub').length).toBeGreaterThanOrEqual(10);
    expect(captured.lines().filter((l) => l.cause === 'usb-verdict-hub')).toHaveLength(1);
    expect(
      feature.metrics!()
        .find((m) => m.name === 'device_agent_usb_verdicts_total')!
        .samples.find((x) => x.labels?.layer === 'hub')!.value,
    ).toBeGreaterThan(10);
  });

  it('a serial of 5,000 characters in a replay is kept nowhere, and no line the layer writes carries it; one of the 126 the kernel can print is clipped in them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = join(dir, 'kmsg.rec');
    const long = 'S'.repeat(5_000);
    const longest = 'L'.repeat(126);
    writeFileSync(
      log,
      kmsgOf([
        ...['1-1.2', '2-1.3'].flatMap((port) => {
          const [hub, n] = [port.slice(0, port.lastIndexOf('.')), port.slice(port.lastIndexOf('.') + 1)];
          return [`usb ${port}: SerialNumber: ${long}`, `usb ${port}: device descriptor read/64, error -71`, `usb ${hub}-port${n}: over-current condition`];
        }),
        `usb 3-1: SerialNumber: ${longest}`,
        'usb usb3-port1: over-current condition',
      ]),
    );
    const captured = captureLogger();
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: '' }, dir, captured);
    await until(() => captured.lines().filter((l) => l.level === 'warn').length >= 3, 'the verdicts');
    await feature.stop?.();
    for (const line of captured.lines()) expect(JSON.stringify(line).length, String(line.msg).slice(0, 80)).toBeLessThan(1_000);
    expect(readFileSync(join(dir, 'usb-ports.json'), 'utf8')).not.toContain(long.slice(0, 200));
    expect(captured.lines().find((l) => l.subject === '3-1')?.msg).toContain(`(${longest.slice(0, 63)}…)`);
    for (const item of worstPortItems(readPortRecord(dir, captured.logger), Date.now(), '', dir))
      expect(`${item.finding} ${item.advice ?? ''}`.length).toBeLessThan(600);
  });
});
