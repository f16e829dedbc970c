import { Adb } from '@devicefarmer/adbkit';
import { afterEach, describe, expect, it } from 'vitest';
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
    const answers = await Promise.all(farm.serials.map((serial) => shell(port, serial, 'getprop ro.serialno')));
    expect(answers.map((a) => a.trim())).toEqual(farm.serialNumbers);
    expect(new Set(answers).size).toBe(200);
    expect(farm.totalSessions()).toBe(200);
    expect([...farm.sessionCounts().values()].every((n) => n === 1)).toBe(true);
    farm.resetCounts();
    expect(farm.totalSessions()).toBe(0);
  });
});
