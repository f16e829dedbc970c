// The iOS client against the simulator (whose protocol Debian's
// libimobiledevice accepts, test/sim-ios/idevice-tools.e2e.test.ts).
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import { iosDeviceInfo } from '../../../src/platforms/ios/inventory.js';
import { probeIphone } from '../../../src/platforms/ios/probe.js';
import { pairedFacts } from '../../../src/platforms/ios/readiness.js';
import { connectDevice, listDevices, MuxListener, type MuxDevice } from '../../../src/platforms/ios/usbmuxd-client.js';
import { SimUsbmuxd, type SimPhone } from '../../sim-ios/usbmuxd.js';

/** usbmuxd's entry of a phone: its LocationID as the simulated usbmuxd gives it (a macOS-like one unless the test sets one). */
const mux = (p: SimPhone): MuxDevice => ({ deviceId: p.deviceId, udid: p.udid, location: p.location ?? 0x14100000 + p.deviceId });

describe('probeIphone against the simulated usbmuxd', () => {
  const sim = new SimUsbmuxd();
  let address: ReturnType<typeof parseUsbmuxdAddress>;
  beforeAll(async () => {
    await sim.start();
    address = parseUsbmuxdAddress(sim.address);
  });
  afterAll(() => sim.dispose());

  for (const name of ['iphone-13-ios16', 'iphone-6s-ios9', 'iphone-15-ios17']) {
    it(`reads ${name} in one session and maps it`, async () => {
      const phone = sim.plug({ profile: name });
      const r = await probeIphone(address, mux(phone), 3000);
      expect(r.kind).toBe('ok');
      if (r.kind !== 'ok') return;
      const info = iosDeviceInfo(phone.udid, r.values);
      expect(info.udid).toBe(phone.udid);
      expect(info.platformVersion).toBe(phone.profile.root.ProductVersion);
      expect(info.serialNumber).toBe(phone.profile.root.SerialNumber);
      expect(info.battery?.percentage).toBe(String(phone.profile.domains['com.apple.mobile.battery']!.BatteryCurrentCapacity));
      expect(info.storage?.total).toBe(phone.profile.domains['com.apple.disk_usage']!.TotalDataCapacity);
      expect(phone.sessions).toBe(1);
      expect(phone.log.filter((l) => l.request === 'StartSession')).toHaveLength(1);
      expect(phone.log.at(-1)?.request).toBe('StopSession');
      if (name.includes('ios9')) expect(phone.tls[0]?.protocol).toBe('TLSv1');
      sim.unplug(phone);
    });
  }

  it('an untrusted phone is not paired, with its public values, and is never asked to pair', async () => {
    const phone = sim.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: 'UNTRUSTED-1' });
    const r = await probeIphone(address, mux(phone), 3000);
    expect(r).toMatchObject({ kind: 'not-paired', public: { ProductType: 'iPhone15,4' } });
    expect(phone.log.map((l) => l.request)).not.toContain('Pair');
    expect(phone.sessions).toBe(0);
  });

  it('a phone that forgot this host answers InvalidHostID: not paired', async () => {
    const phone = sim.plug({ profile: 'iphone-13-ios16', state: 'stale', udid: 'STALE-1' });
    const r = await probeIphone(address, mux(phone), 3000);
    expect(r).toEqual({ kind: 'not-paired', detail: 'lockdown answered InvalidHostID' });
  });

  it('a lockdown that never answers costs one step deadline, and does not hold up another phone', async () => {
    const hung = sim.plug({ profile: 'iphone-13-ios16', state: 'hang', udid: 'HUNG-1' });
    const good = sim.plug({ profile: 'iphone-15-ios17', udid: 'GOOD-1' });
    // By order, not by the wall clock (a loaded CI host took 2.7 s over a 1.5 s bound): the hung phone's step deadline is
    // long, and the good phone's whole probe ends before it; the hung one ends on its first step's deadline, said so.
    let goodDone = false;
    const [a, b] = await Promise.all([
      probeIphone(address, mux(hung), 4_000).then((r) => ({ r, goodFirst: goodDone })),
      probeIphone(address, mux(good), 4_000).then((r) => ((goodDone = true), r)),
    ]);
    expect(a.r.kind).toBe('silent');
    expect(a.r.kind === 'silent' && a.r.detail).toMatch(/QueryType did not answer within 4000 ms/);
    expect(b.kind).toBe('ok');
    expect(a.goodFirst).toBe(true);
  });

  // Lockdown refusing the amfi domain in the middle of a session, on an iOS
  // that has Developer Mode (MissingValue on an older one is the other case):
  // an error answer, or the connection closing on that one request.
  for (const [fault, how] of [
    ['refused', 'an error answer (GetProhibited)'],
    ['close', 'the connection closed on that request'],
  ] as const) {
    it(`the amfi domain refused mid-session (${how}): Developer Mode unknown, never failed; the rest of the inventory whole`, async () => {
      const phone = sim.plug({ profile: 'iphone-15-ios17', udid: `AMFI-${fault}`, amfiFault: fault });
      const r = await probeIphone(address, mux(phone), 3000);
      expect(r.kind).toBe('ok');
      if (r.kind !== 'ok') return;
      expect(phone.log.some((l) => l.domain === 'com.apple.security.mac.amfi')).toBe(true);
      expect(r.values.amfi).toBeUndefined();
      expect(pairedFacts(r.values.root, r.values.amfi)).toEqual({ paired: 'true', osVersion: phone.profile.root.ProductVersion });
      const info = iosDeviceInfo(phone.udid, r.values);
      expect(info.serialNumber).toBe(phone.profile.root.SerialNumber);
      expect(info.battery?.percentage).toBe(String(phone.profile.domains['com.apple.mobile.battery']!.BatteryCurrentCapacity));
      expect(info.storage?.total).toBe(phone.profile.domains['com.apple.disk_usage']!.TotalDataCapacity);
      sim.unplug(phone);
    });
  }

  it('a phone unplugged before the probe is silent, not a crash, saying what usbmuxd answered', async () => {
    const r = await probeIphone(address, { deviceId: 9999, udid: 'GONE' }, 500);
    expect(r).toEqual({ kind: 'silent', detail: 'usbmuxd refused Connect (result 2: bad device)' });
  });

  it("a port the phone does not serve: usbmuxd's refusal named with its result", async () => {
    const phone = sim.plug({ profile: 'iphone-13-ios16', udid: 'NO-SUCH-PORT-1' });
    try {
      await expect(connectDevice(address, phone.deviceId, 1, 500)).rejects.toThrow(/^usbmuxd refused Connect \(result 3: connection refused\)$/);
    } finally {
      sim.unplug(phone);
    }
  });

  it('no usbmuxd at all: silent within the deadline', async () => {
    const r = await probeIphone(parseUsbmuxdAddress('UNIX:/nonexistent/usbmuxd'), { deviceId: 1, udid: 'X' }, 500);
    expect(r.kind).toBe('silent');
  });
});

describe('usbmuxd discovery', () => {
  it('ListDevices and Listen see plug, unplug, and the end of a restarted usbmuxd', async () => {
    const sim = new SimUsbmuxd();
    await sim.start();
    try {
      const address = parseUsbmuxdAddress(sim.address);
      const first = sim.plug({ profile: 'iphone-13-ios16' });
      expect(await listDevices(address, 1000)).toEqual([mux(first)]);
      const listener = new MuxListener();
      const events: string[] = [];
      const ended = new Promise<void>((r) => listener.once('end', () => r()));
      listener.on('attached', (d: MuxDevice) => events.push(`+${d.udid}`));
      listener.on('detached', (id: number) => events.push(`-${id}`));
      await listener.start(address, 1000);
      const second = sim.plug({ profile: 'iphone-15-ios17' });
      sim.unplug(first);
      await new Promise((r) => setTimeout(r, 100));
      expect(events).toEqual([`+${first.udid}`, `+${second.udid}`, `-${first.deviceId}`]);
      await sim.restart();
      await ended;
      listener.stop();
    } finally {
      await sim.dispose();
    }
  });
});

describe('faults a lab meets', () => {
  it('something else on the usbmuxd port (an HTTP server) is refused at once, not parsed for ever', async () => {
    const net = await import('node:net');
    const server = net.createServer((s) => s.end('HTTP/1.1 400 Bad Request\r\nContent-Type: text/html\r\n\r\n<html>no</html>'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    try {
      const t0 = Date.now();
      await expect(listDevices(parseUsbmuxdAddress(`127.0.0.1:${port}`), 2000)).rejects.toThrow(/frame length|closed/);
      expect(Date.now() - t0).toBeLessThan(1000);
    } finally {
      server.close();
    }
  });

  it('a usbmuxd that sends half an answer and stalls costs one deadline', async () => {
    const net = await import('node:net');
    const server = net.createServer((s) => s.write(Buffer.from([0xff, 0x00, 0x00, 0x00, 1, 0, 0, 0])));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const { port } = server.address() as AddressInfo;
    try {
      await expect(listDevices(parseUsbmuxdAddress(`127.0.0.1:${port}`), 300)).rejects.toThrow(/within 300 ms/);
    } finally {
      server.close();
    }
  });

  it('a phone presenting another certificate than its pair record names is not trusted with a session', async () => {
    const sim = new SimUsbmuxd();
    await sim.start();
    try {
      const phone = sim.plug({ profile: 'iphone-13-ios16' });
      const real = sim.pairRecord.bind(sim);
      sim.pairRecord = (p) => {
        const record = real(p);
        return record && { ...record, DeviceCertificate: Buffer.from(p.certs.hostCert) };
      };
      const r = await probeIphone(parseUsbmuxdAddress(sim.address), mux(phone), 1000);
      expect(r).toMatchObject({ kind: 'silent', detail: expect.stringContaining('DeviceCertificate') });
      expect(phone.log.filter((l) => l.request === 'GetValue' && l.domain)).toEqual([]);
    } finally {
      await sim.dispose();
    }
  });
});
