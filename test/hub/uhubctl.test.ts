import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Uhubctl } from '../../src/recovery/uhubctl.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { HubBed } from './hub-bed.js';

// The agent's uhubctl runner with the stand-in uhubctl and the hub bed: the
// arguments uhubctl takes, the output it prints (SOURCES.md), and the
// simulated phone's transport going off and on.

const standIn = fileURLToPath(new URL('./uhubctl', import.meta.url));
const hub = new HubBed();
const phone = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'HUB00001') });
let saved: string | undefined;

beforeAll(async () => {
  await hub.start();
  await phone.start();
  hub.attach('1-1.4', 3, phone);
  saved = process.env.UHUBCTL_STANDIN_URL;
  process.env.UHUBCTL_STANDIN_URL = hub.env.UHUBCTL_STANDIN_URL;
});

afterAll(async () => {
  process.env.UHUBCTL_STANDIN_URL = saved;
  await phone.stop();
  await hub.stop();
});

describe('uhubctl, through the stand-in', () => {
  it('cycles one port: off, the delay, on, printing what uhubctl prints; the phone comes back with adbd unwedged', async () => {
    phone.wedge(true);
    const output = await new Uhubctl(standIn).cycle('1-1.4', 3);
    expect(output.split('\n')).toEqual([
      'Current status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]',
      `  Port 3: 0103 power enable connect [18d1:4ee7 Google Pixel 8 Pro ${phone.serial}]`,
      'Sent power off request',
      'New status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]',
      '  Port 3: 0000 off',
      'Current status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]',
      '  Port 3: 0000 off',
      'Sent power on request',
      'New status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]',
      '  Port 3: 0100 power',
    ]);
    expect(hub.switches.map((s) => [s.hub, s.port, s.power])).toEqual([
      ['1-1.4', 3, 'off'],
      ['1-1.4', 3, 'on'],
    ]);
    // uhubctl's default delay between off and on is 2 s.
    expect(hub.switches[1]!.at - hub.switches[0]!.at).toBeGreaterThanOrEqual(1_900);
    expect(phone.options.wedged).toBe(false);
  }, 20_000);

  it('a phone stuck offline (adbd never answers the handshake) answers it after the cycle, as one that booted afresh', async () => {
    phone.setMode('offline');
    await new Uhubctl(`${standIn} -d 0`).cycle('1-1.4', 3);
    expect(phone.currentMode).toBe('ready');
  });

  it("a location with no hub: uhubctl's words, exit status 1, nothing switched", async () => {
    const before = hub.switches.length;
    await expect(new Uhubctl(standIn).cycle('9-9', 1)).rejects.toThrow(/-l 9-9 -p 1 -a cycle: exit status 1: No compatible devices detected at location 9-9!/);
    expect(hub.switches).toHaveLength(before);
  });

  it('a command that does not end is stopped at the deadline; one that does not exist is named', async () => {
    // A 30 s delay between off and on: the port stays off, as a real uhubctl killed mid-cycle leaves it.
    await expect(new Uhubctl(`${standIn} -d 30`, 1_000).cycle('1-1.4', 3)).rejects.toThrow(/no end within 1 s/);
    await expect(new Uhubctl('/nonexistent/uhubctl').cycle('1-1.4', 3)).rejects.toThrow(/ENOENT/);
  });
});
