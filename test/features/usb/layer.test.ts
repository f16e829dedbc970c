import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeviceSnapshot } from '../../../src/devices/snapshot.js';
import type { DeviceFeature } from '../../../src/devices/feature.js';
import { usbFeature } from '../../../src/features/usb/feature.js';
import { controllersOfBuses, interfacesOnPort, portsBySerial } from '../../../src/features/usb/sysfs.js';
import { KernelLogFollower } from '../../../src/features/usb/follow.js';
import { VirtualTime } from '../../../src/util/clock.js';
import { waitFor } from '../../support/wait.js';
import { captureLogger } from '../../log/capture.js';
import { featureContext } from '../../support/feature-bed.js';
import { offAdbByInterfaces } from '../../../src/platforms/android/usb-interfaces.js';

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

/** The layer's timers on a time line of its own, its wall clock at today's. */
function layer(usb: { kernelLog: string; sysfsRoot: string }, stateDir: string, logger = captureLogger()) {
  const time = new VirtualTime(Date.now());
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
  return { feature, lines: logger.lines, until };
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

  it('says once that a kernel log it opened cannot be read (a directory named), however often it tries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const log = captureLogger();
    // Timers the test fires by hand: each retry runs when the test says.
    const due: Array<() => void> = [];
    const follower = new KernelLogFollower({
      path: dir,
      onLine: () => undefined,
      logger: log.logger,
      timers: { setTimer: (fn) => (due.push(fn), { cancel: () => undefined }) },
    });
    expect(follower.start()).toBe(true);
    for (let retry = 0; retry < 5; retry++) {
      await waitFor(() => due.length > 0, 5_000, 'the next retry');
      due.shift()!();
    }
    follower.stop();
    expect(log.lines().filter((l) => String(l.msg).startsWith(`reading the kernel's messages from ${dir} failed`))).toHaveLength(1);
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
  it('finds the port of a phone adb names none for (over TCP) or of an iPhone (usbmuxd names none) by its USB serial in sysfs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usb-layer-'));
    const sysfs = join(dir, 'bus');
    const onPort = (port: string, serial: string): void => {
      mkdirSync(join(sysfs, port), { recursive: true });
      writeFileSync(join(sysfs, port, 'serial'), `${serial}\n`);
    };
    onPort('1-1.4.2', 'R58D');
    // An iPhone enumerates with its udid without the dash.
    onPort('1-1.4.3', '00008030001A2B3C0E12802E');
    const log = join(dir, 'kmsg.rec');
    writeFileSync(log, badPortRecords(100) + '3,200,300000,-;usb 1-1.4.3: SerialNumber: 00008030001A2B3C0E12802E\n');
    const { feature, until } = layer({ kernelLog: log, sysfsRoot: sysfs }, dir);
    const overTcp: DeviceSnapshot = { ...phone('127.0.0.1:5555'), udid: 'R58D' };
    await until(() => note(feature, overTcp) !== undefined, 'the port verdict');
    expect(note(feature, overTcp)).toMatch(
      /^USB: port 1-1\.4\.2: 14 enumeration failures .* with 3 different phones: the cable or the hub port, not the phone$/,
    );
    // The same port's hub fails on another port too: all of hub 1-1.4 at once.
    appendFileSync(log, '3,201,301000,-;usb 1-1.4.3: device descriptor read/64, error -71\n');
    const iPhone: DeviceSnapshot = { ...phone('00008030-001A2B3C0E12802E'), platform: 'ios', udid: '00008030-001A2B3C0E12802E' };
    await until(() => note(feature, iPhone) !== undefined, 'the hub verdict');
    expect(note(feature, iPhone)).toMatch(
      /^USB: hub 1-1\.4: all 2 of its ports \(1-1\.4\.2, 1-1\.4\.3\) failed within 10 min .*: the hub or its power supply$/,
    );
    expect(note(feature, phone('NOTONUSB'))).toBeUndefined();
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
