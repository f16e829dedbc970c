import { chmodSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Uhubctl } from '../../src/hub/uhubctl.js';
import { hubStatusProblem } from '../../src/hub/status.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { HubBed } from './hub-bed.js';

// The agent's uhubctl runner with the stand-in uhubctl and the hub bed: the
// arguments uhubctl takes, the output it prints (SOURCES.md), and the
// simulated phone's transport going off and on.

const standIn = fileURLToPath(new URL('./uhubctl', import.meta.url));
const hub = new HubBed();
const phone = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'HUB00001') });
const VARIABLES = ['UHUBCTL_STANDIN_URL', 'UHUBCTL_STANDIN_SYSFS', 'UHUBCTL_STANDIN_DEVFS'] as const;
const saved: Partial<Record<string, string>> = {};

beforeAll(async () => {
  await hub.start();
  await phone.start();
  hub.attach('1-1.4', 3, phone);
  for (const name of VARIABLES) {
    saved[name] = process.env[name];
    process.env[name] = hub.env[name];
  }
});

afterAll(async () => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
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

  it("lists a hub's status without -a (uhubctl -l HUB): its line and each of its ports; a location with no hub, its words", async () => {
    const output = await new Uhubctl(standIn).status('1-1.4');
    expect(output.split('\n')).toEqual([
      'Current status for hub 1-1.4 [2109:2817 VIA Labs, Inc. USB2.0 Hub, USB 2.10, 4 ports, ppps]',
      '  Port 1: 0100 power',
      '  Port 2: 0100 power',
      '  Port 3: 0100 power',
      '  Port 4: 0100 power',
    ]);
    expect(hubStatusProblem('1-1.4', [3], output)).toBeUndefined();
    expect(hubStatusProblem('1-1.4', [3, 7], output)).toBe('hub 1-1.4 has no port 7 (it lists 1, 2, 3, 4)');
    await expect(new Uhubctl(standIn).status('1-1.9')).rejects.toThrow(/-l 1-1\.9: exit status 1: No compatible devices detected at location 1-1\.9!/);
  });

  it('writes the port sysfs disable file as uhubctl does ("1" off, "0" on)', async () => {
    await new Uhubctl(standIn).switch('1-1.4', 3, 'off');
    expect(readFileSync(hub.disableFile('1-1.4', 3), 'utf8')).toBe('1');
    await new Uhubctl(standIn).switch('1-1.4', 3, 'on');
    expect(readFileSync(hub.disableFile('1-1.4', 3), 'utf8')).toBe('0');
  });

  it('fails as uhubctl fails without access: no hub node (a private /dev), or a port file it cannot write (a read-only /sys)', async () => {
    const before = hub.switches.length;
    const devfs = process.env.UHUBCTL_STANDIN_DEVFS;
    process.env.UHUBCTL_STANDIN_DEVFS = '/nonexistent/dev/bus/usb';
    try {
      await expect(new Uhubctl(standIn).cycle('1-1.4', 3)).rejects.toThrow(/exit status 1: No compatible devices detected at location 1-1.4!/);
    } finally {
      process.env.UHUBCTL_STANDIN_DEVFS = devfs;
    }
    const file = hub.disableFile('1-1.4', 3);
    chmodSync(file, 0o444);
    try {
      // As root the mode is no obstacle: only a read-only mount stops root (the deploy checks).
      if (process.getuid?.() !== 0) await expect(new Uhubctl(standIn).switch('1-1.4', 3, 'off')).rejects.toThrow(/exit status 1/);
    } finally {
      chmodSync(file, 0o644);
    }
    expect(hub.switches).toHaveLength(before);
  });

  it('a command that does not end is stopped at the deadline; one that does not exist is named', async () => {
    // A 30 s delay between off and on: the port stays off, as a real uhubctl killed mid-cycle leaves it.
    await expect(new Uhubctl(`${standIn} -d 30`, 1_000).cycle('1-1.4', 3)).rejects.toThrow(/no end within 1 s/);
    await expect(new Uhubctl('/nonexistent/uhubctl').cycle('1-1.4', 3)).rejects.toThrow(/ENOENT/);
  });
});
