// IosWatcher against the simulated usbmuxd: plug and unplug
// seen within 2 s, a usbmuxd restart survived with the list reconciled, a
// host without usbmuxd said once, a silent lockdown reported with its last
// good inventory.
import { afterEach, describe, expect, it } from 'vitest';
import type { ListingChange as DeviceChange } from '../../../src/platforms/source.js';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import { IosWatcher } from '../../../src/platforms/ios/watcher.js';
import { createLogger } from '../../../src/log/logger.js';
import { SimUsbmuxd } from '../../sim-ios/usbmuxd.js';

function capture() {
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger({ pretty: false, level: 'debug', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
  return { lines, logger };
}

async function until(check: () => boolean, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - t0;
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(opts: { reconcileMs?: number; tcp?: boolean; awayGraceMs?: number } = {}) {
  const sim = new SimUsbmuxd({ tcp: opts.tcp });
  await sim.start();
  cleanups.push(() => sim.dispose());
  const { lines, logger } = capture();
  const watcher = new IosWatcher({
    address: parseUsbmuxdAddress(sim.address),
    reconcileMs: opts.reconcileMs ?? 60_000,
    stepTimeoutMs: 500,
    logger,
    reconnectMinMs: 20,
    reconnectMaxMs: 100,
    awayGraceMs: opts.awayGraceMs,
  });
  cleanups.push(() => watcher.stop());
  const changes: DeviceChange[] = [];
  watcher.on('change', (c: DeviceChange[]) => changes.push(...c));
  return { sim, watcher, lines, logger, changes };
}

describe('IosWatcher', () => {
  it('lists phones at start and follows plug and unplug within 2 s', async () => {
    const { sim, watcher, changes } = await setup();
    const a = sim.plug({ profile: 'iphone-13-ios16' });
    await watcher.start();
    expect([...watcher.devices]).toEqual([[a.udid, 'attached']]);
    const b = sim.plug({ profile: 'iphone-15-ios17' });
    expect(await until(() => watcher.devices.has(b.udid), 2000)).toBeLessThan(2000);
    sim.unplug(a);
    await until(() => !watcher.devices.has(a.udid), 2000);
    expect(changes).toEqual([
      { serial: a.udid, to: 'attached' },
      { serial: b.udid, to: 'attached' },
      { serial: a.udid, from: 'attached' },
    ]);
    expect(watcher.device(b.udid)?.deviceId).toBe(b.deviceId);
  });

  it.each([
    ['unix', false],
    ['tcp', true],
  ])('a usbmuxd restart that lost an unplug (%s): reconnects and reconciles, no ghost left', async (_name, tcp) => {
    // The grace short: a phone not listed after a reconnect is kept that long (a usbmuxd just started lists its phones late).
    const { sim, watcher, lines } = await setup({ tcp, awayGraceMs: 300 });
    const a = sim.plug({ profile: 'iphone-13-ios16' });
    const b = sim.plug({ profile: 'iphone-15-ios17' });
    await watcher.start();
    await sim.stop();
    // While usbmuxd is down a phone goes; no Detached can reach the agent.
    sim.phones.delete(a.deviceId);
    await new Promise((r) => setTimeout(r, 50));
    await sim.start();
    await until(() => !watcher.devices.has(a.udid) && watcher.alive, 3000);
    expect([...watcher.devices.keys()]).toEqual([b.udid]);
    expect(lines.some((l) => l.level === 'warn' && /usbmuxd connection ended/.test(l.msg))).toBe(true);
    const c = sim.plug({ profile: 'iphone-6s-ios9' });
    await until(() => watcher.devices.has(c.udid), 2000);
  });

  it('a usbmuxd restart shorter than the grace unplugs no phone, its end dated; one away longer leaves none shown', async () => {
    const { sim, watcher, changes } = await setup({ awayGraceMs: 1500 });
    const a = sim.plug({ profile: 'iphone-13-ios16' });
    await watcher.start();
    changes.length = 0;
    expect(watcher.droppedAt).toBeUndefined();
    // Down 400 ms, socket file gone meanwhile, as when systemd restarts usbmuxd.
    const before = performance.now();
    await sim.restart(400);
    await until(() => watcher.alive, 3000);
    const back = performance.now();
    await new Promise((r) => setTimeout(r, 200));
    expect(changes).toEqual([]);
    expect([...watcher.devices.keys()]).toEqual([a.udid]);
    // Its end dated, and kept once it is back: the in-service clock counts a restart quicker than its look from it.
    expect(watcher.droppedAt).toBeGreaterThanOrEqual(before);
    expect(watcher.droppedAt).toBeLessThanOrEqual(back);

    await sim.stop();
    const t0 = Date.now();
    await until(() => !watcher.devices.has(a.udid), 5000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1400);
    expect(changes).toEqual([{ serial: a.udid, from: 'attached' }]);
  });

  it('a restarted usbmuxd that lists its phones late (version exchange, preflight) drops and re-adds none; one that never comes back goes after the grace', async () => {
    const { sim, watcher, changes } = await setup({ awayGraceMs: 2000 });
    const a = sim.plug({ profile: 'iphone-13-ios16' });
    const b = sim.plug({ profile: 'iphone-15-ios17' });
    await watcher.start();
    changes.length = 0;
    // b is unplugged while usbmuxd is down; a is listed again only 800 ms after the socket is back.
    await sim.stop();
    sim.phones.delete(b.deviceId);
    await sim.restart(100, 800);
    await until(() => watcher.alive, 3000);
    const back = Date.now();
    // Kept, but not to be asked: its DeviceID is from before the restart.
    expect(watcher.listedNow(a.udid)).toBe(false);
    await new Promise((r) => setTimeout(r, 1200));
    expect(changes).toEqual([]);
    expect([...watcher.devices.keys()].sort()).toEqual([a.udid, b.udid].sort());
    expect(watcher.listedNow(a.udid)).toBe(true);
    expect(watcher.listedNow(b.udid)).toBe(false);
    expect(watcher.device(a.udid)?.deviceId).toBe(a.deviceId);
    await until(() => !watcher.devices.has(b.udid), 4000);
    expect(Date.now() - back).toBeGreaterThanOrEqual(1900);
    expect(changes).toEqual([{ serial: b.udid, from: 'attached' }]);
    expect(watcher.devices.has(a.udid)).toBe(true);
  });

  it('after a restart, a Detached for a new DeviceID never removes a kept phone that had that number before', async () => {
    const { sim, watcher, changes } = await setup({ awayGraceMs: 2000 });
    const a = sim.plug({ profile: 'iphone-13-ios16' });
    const b = sim.plug({ profile: 'iphone-15-ios17' });
    await watcher.start();
    sim.unplug(a);
    await until(() => !watcher.devices.has(a.udid), 2000);
    const before = watcher.device(b.udid)?.deviceId;
    changes.length = 0;
    // The restarted usbmuxd numbers b 1, and lists it late; the next phone gets b's number from before.
    await sim.restart(50, 1500);
    await until(() => watcher.alive, 3000);
    const c = sim.plug({ profile: 'iphone-6s-ios9' });
    expect(c.deviceId).toBe(before);
    await until(() => watcher.devices.has(c.udid), 2000);
    sim.unplug(c);
    await until(() => !watcher.devices.has(c.udid), 2000);
    expect(watcher.devices.has(b.udid)).toBe(true);
    expect(changes).toEqual([
      { serial: c.udid, to: 'attached' },
      { serial: c.udid, from: 'attached' },
    ]);
  });

  it('a list asked for before an unplug or a plug and answered after it (a busy usbmuxd) undoes neither', async () => {
    const { sim, watcher, changes } = await setup();
    const a = sim.plug({ profile: 'iphone-13-ios16' });
    await watcher.start();
    changes.length = 0;
    sim.listLateMs = 300;
    const asked = sim.requests.filter((r) => r === 'ListDevices').length;
    const late = watcher.reconcile();
    await until(() => sim.requests.filter((r) => r === 'ListDevices').length > asked, 2000);
    // Asked with a plugged and b not: a leaves and b comes before the answer.
    sim.unplug(a);
    const b = sim.plug({ profile: 'iphone-15-ios17' });
    await until(() => !watcher.devices.has(a.udid) && watcher.devices.has(b.udid), 2000);
    expect(await late).toBe(true);
    expect(watcher.devices.has(a.udid)).toBe(false);
    expect(watcher.devices.has(b.udid)).toBe(true);
    expect(changes).toEqual([
      { serial: a.udid, from: 'attached' },
      { serial: b.udid, to: 'attached' },
    ]);
  });

  it('no usbmuxd socket: one informational line, no error loop, not answered until usbmuxd appears, and picked up then', async () => {
    const sim = new SimUsbmuxd();
    cleanups.push(() => sim.dispose());
    await sim.start();
    const address = parseUsbmuxdAddress(sim.address);
    await sim.stop();
    const { lines, logger } = capture();
    const watcher = new IosWatcher({ address, reconcileMs: 30, stepTimeoutMs: 300, logger, reconnectMinMs: 10, reconnectMaxMs: 20 });
    cleanups.push(() => watcher.stop());
    // stop() left the socket file away? A closed unix server removes it.
    await watcher.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.filter((l) => l.level === 'info')).toHaveLength(1);
    expect(lines.filter((l) => l.level !== 'info')).toEqual([]);
    expect(lines[0]?.msg).toMatch(/no usbmuxd socket/);
    // No list yet: its silence says nothing of an earlier run's iPhones (the report carries them).
    expect(watcher.answered).toBe(false);
    const p = sim.plug({ profile: 'iphone-13-ios16' });
    await sim.start();
    await until(() => watcher.devices.has(p.udid), 2000);
    // Listen's Attached can come before the first full list does (a reconcile tick later).
    await until(() => watcher.answered, 2000);
  });

  it('no usbmuxd socket when iPhones were not asked for: said at debug level only', async () => {
    const { lines, logger } = capture();
    const watcher = new IosWatcher({
      address: parseUsbmuxdAddress('UNIX:/nonexistent/usbmuxd'),
      reconcileMs: 30,
      stepTimeoutMs: 300,
      logger,
      quietWhenAbsent: true,
    });
    cleanups.push(() => watcher.stop());
    await watcher.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([['debug', expect.stringMatching(/no usbmuxd socket/)]]);
  });
});
