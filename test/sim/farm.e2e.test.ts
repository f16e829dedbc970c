import { Adb } from '@devicefarmer/adbkit';
import { afterEach, describe, expect, it } from 'vitest';
import { mapLimit } from '../../src/util/limit.js';
import { SimFarm } from './farm.js';

let farm: SimFarm | undefined;
afterEach(async () => {
  await farm?.stop();
  farm = undefined;
});

async function shell(port: number, serial: string, command: string): Promise<string> {
  const client = Adb.createClient({ host: '127.0.0.1', port });
  return (await Adb.util.readAll(await client.getDevice(serial).shell(command))).toString();
}

describe('SimFarm', () => {
  it('starts mixed devices and waits for each expected state', async () => {
    farm = new SimFarm({
      devices: [{ serial: 'A1' }, { serial: 'B2', mode: 'unauthorized' }, { serial: 'C3', mode: 'offline' }, {}],
    });
    await farm.start();
    const states = new Map((await farm.server.devices()).map((d) => [d.serial, d.state]));
    expect([...farm.serials].map((s) => states.get(s))).toEqual(['device', 'unauthorized', 'offline', 'device']);
    expect(farm.serialNumbers).toEqual(['A1', 'B2', 'C3', 'SIM0004']);
  });

  it('plugs a device into a running farm and removes one at once', async () => {
    farm = new SimFarm({ count: 2 });
    await farm.start();
    const added = await farm.add({ serial: 'LATE1' });
    expect(await farm.server.state(added.serial)).toBe('device');
    expect((await shell(farm.port, added.serial, 'getprop ro.serialno')).trim()).toBe('LATE1');
    const first = farm.devices[0]!;
    await farm.remove(first);
    expect(await farm.server.state(first.serial)).toBe('absent');
    expect(farm.serialNumbers).toEqual(['SIM0002', 'LATE1']);
    expect(farm.devices.length).toBe(2);
  });

  it('runs 200 devices from one recording, each with its own serial, counting sessions per device', async () => {
    farm = new SimFarm({ count: 200, profile: 'pixel-8-pro' });
    await farm.start();
    const port = farm.port;
    // As many shells at once as the agent opens (its probe limit), not 200: a loaded CI host's adb server
    // resets some of 200 simultaneous connects (read ECONNRESET, seen once), which says nothing of the farm.
    const answers = await mapLimit(farm.serials, 16, (serial) => shell(port, serial, 'getprop ro.serialno'));
    expect(answers.map((a) => a.trim())).toEqual(farm.serialNumbers);
    expect(new Set(answers).size).toBe(200);
    expect(farm.totalSessions()).toBe(200);
    expect([...farm.sessionCounts().values()].every((n) => n === 1)).toBe(true);
    farm.resetCounts();
    expect(farm.totalSessions()).toBe(0);
  });
});

describe('SimFarm fault classes', () => {
  it('duplicate serials: two phones that claim one ro.serialno are both listed by adb (under their TCP addresses)', async () => {
    // Over TCP adb names a device by its address, so two phones with one USB
    // serial can only clash in what they say they are (ro.serialno, the udid).
    farm = new SimFarm({ devices: [{ serial: '0123456789ABCDEF' }, { serial: '0123456789ABCDEF' }] });
    await farm.start();
    const listed = (await farm.server.devices()).filter((d) => d.state === 'device').map((d) => d.serial);
    expect(listed.sort()).toEqual([...farm.serials].sort());
    const answers = await Promise.all(farm.serials.map((serial) => shell(farm!.port, serial, 'getprop ro.serialno')));
    expect(answers).toEqual(['0123456789ABCDEF\n', '0123456789ABCDEF\n']);
  });

  it('proxy: a tracker dies on schedule while every other request passes', async () => {
    farm = new SimFarm({ count: 1, proxy: { trackerLifetimeMs: 150 } });
    await farm.start();
    const client = Adb.createClient({ host: '127.0.0.1', port: farm.port });
    const tracker = await client.trackDevices();
    // adbkit reports a cut tracker as an error ("Connection closed"), then end.
    const errors: string[] = [];
    tracker.on('error', (err: Error) => errors.push(err.message));
    const ended = new Promise<number>((resolve) => {
      const started = Date.now();
      tracker.on('end', () => resolve(Date.now() - started));
    });
    const lived = await ended;
    expect(lived).toBeGreaterThanOrEqual(100);
    expect(lived).toBeLessThan(3000);
    expect(farm.proxy!.trackersOpened).toBe(1);
    expect(farm.proxy!.trackersCut).toBe(1);
    expect(errors).toEqual(['Connection closed']);
    // Device lists and shells go through the same proxy and are not cut.
    expect((await client.listDevices()).map((d: { id: string }) => d.id)).toEqual(farm.serials);
    expect((await shell(farm.port, farm.serials[0]!, 'getprop ro.serialno')).trim()).toBe('SIM0001');
    // Lifetime off: a tracker lives until cut by hand.
    farm.proxy!.trackerLifetimeMs = undefined;
    const second = await client.trackDevices();
    second.on('error', () => undefined);
    const secondEnded = new Promise<void>((resolve) => second.on('end', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(farm.proxy!.trackersCut).toBe(1);
    expect(farm.proxy!.cutTrackers()).toBe(1);
    await secondEnded;
    expect(farm.proxy!.trackersCut).toBe(2);
  });
});
