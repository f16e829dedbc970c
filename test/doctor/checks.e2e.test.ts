import type { DoctorPhone } from '../../src/features/context.js';
import { healthFeature } from '../../src/features/health/feature.js';
import { usbItems } from '../../src/features/usb/controllers.js';
import { named } from '../../src/doctor/checklist.js';
import { featureContext } from '../support/feature-bed.js';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ADB_DOCTOR } from '../../src/platforms/android/doctor.js';
import { AdbClient, type ShellResult } from '../../src/platforms/android/adb/client.js';
import { ShellTimeoutError } from '../../src/platforms/android/adb/errors.js';
import { CloudAuthError } from '../../src/cloud/errors.js';
import type { Settings } from '../../src/config/schema.js';
import { checkAdb, checkCloud, inspectNodeId, MODEL_COMMAND, unwritable, type AdbCheckOptions, type DoctorAdb } from '../../src/doctor/checks.js';
import { freePort } from '../sim/adb-server.js';
import { hostDevicesPayload, ScriptedAdbServer } from './scripted-adb.js';
import { fixture } from '../platforms/android/inventory/fixture.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const options: AdbCheckOptions = { service: ADB_DOCTOR, answerTimeoutMs: 2_000, shellTimeoutMs: 1_000, concurrency: 4, hiddenDevices: [] };
const servers: ScriptedAdbServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

async function scripted(answers: Record<string, string>, silent = false): Promise<AdbClient> {
  const server = new ScriptedAdbServer(answers, silent);
  servers.push(server);
  const port = await server.start();
  return new AdbClient({ host: '127.0.0.1', port, source: 'test' });
}

function devicesFixture(name: string): string {
  return hostDevicesPayload(readFileSync(join(fixtures, 'adb-devices', name), 'utf8'));
}

describe('checkAdb through adbkit, against recorded adb devices outputs', () => {
  it('fails a USB device adb may not open, with the udev advice', async () => {
    const adb = await scripted({ 'host:version': '0029', 'host:devices': devicesFixture('usb-no-permissions.txt') });
    const items = await checkAdb(adb, options);
    expect(items.map((i) => i.status)).toEqual(['ok', 'fail']);
    expect(items[0]!.finding).toBe(`adb server ${adb.label}, version 41 (adb 1.0.41)`);
    expect(items[1]!.finding).toMatch(/^device eb9f484b: no permissions \(missing udev rules\? user is in the plugdev group\)/);
    expect(items[1]!.advice).toMatch(/udev rule/);
  });

  it('fails an unauthorized network device and an offline emulator without opening a shell', async () => {
    for (const [file, serial, state] of [
      ['tcp-unauthorized.txt', '10.10.176.186:7401', 'unauthorized'],
      ['emulator-offline.txt', 'emulator-5554', 'offline'],
    ] as const) {
      const adb = await scripted({ 'host:version': '0029', 'host:devices': devicesFixture(file) });
      const items = await checkAdb(adb, options);
      expect(items[1]).toMatchObject({ status: 'fail', finding: `device ${serial}: ${state}` });
      expect(servers.at(-1)!.requests.some((r) => r.startsWith('host:transport'))).toBe(false);
    }
  });

  it('reads the version adb answers in hex (0x28 = 40)', async () => {
    const adb = await scripted({ 'host:version': '0028', 'host:devices': '' });
    const items = await checkAdb(adb, options);
    expect(items[0]!.finding).toMatch(/version 40 \(adb 1\.0\.40\)$/);
    expect(items[1]).toMatchObject({ status: 'warn', finding: 'devices: adb lists none' });
  });

  it('fails, without hanging, on an address that accepts but never answers', async () => {
    const adb = await scripted({}, true);
    const items = await checkAdb(adb, { ...options, answerTimeoutMs: 300 });
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ status: 'fail', finding: `adb server ${adb.label}: connected, but no answer within 0 s` });
  });

  it('fails with how to start adb when nothing listens', async () => {
    const port = await freePort();
    const adb = new AdbClient({ host: '127.0.0.1', port, source: 'ANDROID_ADB_SERVER_PORT' });
    const items = await checkAdb(adb, options);
    expect(items).toEqual([
      expect.objectContaining({ status: 'fail', finding: `adb server tcp:127.0.0.1:${port} (ANDROID_ADB_SERVER_PORT): not reachable (ECONNREFUSED)` }),
    ]);
  });
});

/** A stand-in adb client whose devices answer getprop as told. */
function fakeAdb(devices: { serial: string; state: string }[], shell: (serial: string) => Promise<ShellResult>): DoctorAdb & { shells: string[] } {
  const shells: string[] = [];
  return {
    label: 'tcp:127.0.0.1:5037 (fake)',
    shells,
    version: async () => 41,
    listDevices: async () => devices,
    shell: async (serial, command) => {
      shells.push(`${serial}: ${command}`);
      return shell(serial);
    },
  };
}

const answer = (output: string): ShellResult => ({ output, bytes: output.length, truncated: false });

describe('checkAdb per device', () => {
  it("shows where each device is plugged from adb's long listing, and the load of its USB controller", async () => {
    const adb = {
      ...fakeAdb(
        [
          { serial: 'R58M12AB', state: 'device' },
          { serial: 'ZY22', state: 'unauthorized' },
        ],
        async () => answer('SM-G991B\n'),
      ),
      listDevicesLong: async () => [
        { serial: 'R58M12AB', state: 'device', usb: '1-1.4.2', product: 'o1sxeea', transportId: '7' },
        { serial: 'ZY22', state: 'unauthorized', usb: '1-1.3', transportId: '8' },
      ],
    };
    // The USB layer's line on where the phones plug in, over a controller sysfs would show.
    const ports = {
      ports: (phones: readonly DoctorPhone[]) => named('usb.controllers', usbItems(phones, [{ controller: '0000:00:14.0', buses: [1, 2], devices: 4 }], [])),
    };
    const items = await checkAdb(adb, { ...options, features: [ports] });
    expect(items.slice(1).map((i) => i.finding)).toEqual([
      'device R58M12AB: device, SM-G991B [usb 1-1.4.2, transport 7]',
      'device ZY22: unauthorized [usb 1-1.3, transport 8]',
      'USB controller 0000:00:14.0 (bus 1, 2): 4 USB devices, hubs included, 2 of them adb devices',
    ]);
  });

  it('a long listing that fails leaves the rest of the check as it was', async () => {
    const adb = {
      ...fakeAdb([{ serial: 'R58M12AB', state: 'device' }], async () => answer('SM-G991B\n')),
      listDevicesLong: () => Promise.reject(new Error('closed')),
    };
    const items = await checkAdb(adb, options);
    expect(items.slice(1).map((i) => i.finding)).toEqual(['device R58M12AB: device, SM-G991B']);
  });

  it('runs one getprop per ready device only, and lists devices by serial', async () => {
    const adb = fakeAdb(
      [
        { serial: 'emulator-5556', state: 'device' },
        { serial: 'emulator-5554', state: 'offline' },
        { serial: '0816f3699208ee6d', state: 'device' },
      ],
      async (serial) =>
        answer(
          serial === 'emulator-5556'
            ? 'Android SDK built for x86_64\nro.serialno:EMULATOR36X1X9X0\nro.boot.serialno:\n'
            : 'BE2028\r\nro.serialno:0816f3699208ee6d\r\nro.boot.serialno:0816f3699208ee6d\r\n',
        ),
    );
    const items = await checkAdb(adb, { ...options, hiddenDevices: ['0816f3699208ee6d'] });
    expect(items.slice(1).map((i) => i.finding)).toEqual([
      'device 0816f3699208ee6d: device, BE2028, reported hidden',
      'device emulator-5554: offline',
      'device emulator-5556: device, Android SDK built for x86_64',
    ]);
    expect(adb.shells.sort()).toEqual([
      `0816f3699208ee6d: ${MODEL_COMMAND}; ${ADB_DOCTOR.udidCommand}`,
      `emulator-5556: ${MODEL_COMMAND}; ${ADB_DOCTOR.udidCommand}`,
    ]);
  });

  it('says a device is reported hidden by its udid, as the report hides it; an entry that names only its adb serial hides nothing, and it says so', async () => {
    // A network phone: adb names it by its address, the report by its ro.serialno; a USB phone whose serial is its udid.
    const adb = fakeAdb(
      [
        { serial: '192.168.1.20:5555', state: 'device' },
        { serial: '10.0.0.7:5555', state: 'device' },
        { serial: 'R58M12AB', state: 'unauthorized' },
      ],
      async (serial) =>
        answer(
          serial === '192.168.1.20:5555'
            ? 'Pixel 7\nro.serialno:28031FDH2001QK\nro.boot.serialno:28031FDH2001QK\n'
            : 'SM-G991B\nro.serialno:\nro.boot.serialno:R3CR40ABCDE\n',
        ),
    );
    const items = await checkAdb(adb, { ...options, hiddenDevices: ['192.168.1.20:5555', 'R3CR40ABCDE', 'R58M12AB'] });
    expect(items.slice(1).map((i) => [i.status, i.finding, i.advice])).toEqual([
      ['ok', 'device 10.0.0.7:5555: device, SM-G991B, reported hidden', undefined],
      [
        'warn',
        'device 192.168.1.20:5555: device, Pixel 7, not hidden: hiddenDevices names its adb serial, and the report hides by udid (28031FDH2001QK)',
        'write its udid 28031FDH2001QK in hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES) in place of its adb serial',
      ],
      // Not read (unauthorized): the report gives it its adb serial, which hiddenDevices names.
      ['fail', 'device R58M12AB: unauthorized, reported hidden', expect.stringContaining('')],
    ]);
  });

  it('with the health rules, the same one shell per ready device also reads the battery: a line per battery problem under the device', async () => {
    const overheat = fixture('battery', 'aosp-android14-overheat.txt');
    const adb = fakeAdb(
      [
        { serial: 'A1', state: 'device' },
        { serial: 'B2', state: 'device' },
      ],
      async (serial) =>
        answer(
          serial === 'A1'
            ? `Pixel 8\nro.serialno:A1\nro.boot.serialno:\n${overheat}`
            : "SM-G991B\nro.serialno:B2\nro.boot.serialno:\nCan't find service: battery\n",
        ),
    );
    const items = await checkAdb(adb, { ...options, features: [healthFeature(featureContext()).doctor!] });
    expect(items.slice(1).map((i) => [i.id, i.status, i.finding])).toEqual([
      ['phone', 'ok', 'device A1: device, Pixel 8'],
      ['phone.battery', 'warn', 'device A1: battery unhealthy'],
      ['phone', 'ok', 'device B2: device, SM-G991B'],
      // No figure in its answer: unread, never fine.
      ['phone.battery', 'unread', 'its battery service printed no figures'],
    ]);
    expect(adb.shells.sort()).toEqual([
      `A1: ${MODEL_COMMAND}; ${ADB_DOCTOR.udidCommand}; dumpsys battery`,
      `B2: ${MODEL_COMMAND}; ${ADB_DOCTOR.udidCommand}; dumpsys battery`,
    ]);
  });

  it('warns about a ready device whose shell times out, and still checks the others', async () => {
    const adb = fakeAdb(
      [
        { serial: 'HUNG01', state: 'device' },
        { serial: 'GOOD01', state: 'device' },
      ],
      async (serial) => {
        if (serial === 'HUNG01') throw new ShellTimeoutError(serial, 1000, '');
        return answer('SM-S936B\n');
      },
    );
    const items = await checkAdb(adb, options);
    expect(items[1]).toMatchObject({ status: 'ok', finding: 'device GOOD01: device, SM-S936B' });
    expect(items[2]!.status).toBe('warn');
    expect(items[2]!.finding).toMatch(/^device HUNG01: device, but its shell failed: device HUNG01 did not finish its shell session within 1000 ms/);
  });

  it('compares the adb command on PATH with the server when there is one', async () => {
    const tool = readFileSync(join(fixtures, 'adb-version', 'platform-tools-36.txt'), 'utf8');
    const adb = fakeAdb([], async () => answer(''));
    const items = await checkAdb(adb, { ...options, adbTool: async () => tool });
    expect(items[1]).toMatchObject({ status: 'ok' });
    expect(items[1]!.finding).toMatch(/^adb command .*platform-tools\/adb: 1\.0\.41, 36\.0\.0-13206524, same version as the server$/);
    const none = await checkAdb(adb, { ...options, adbTool: async () => undefined });
    expect(none.map((i) => i.finding)).not.toContainEqual(expect.stringMatching(/adb command/));
  });
});

describe('checkCloud', () => {
  const target = { baseUrl: 'https://cloud.example.com/v1', username: 'lab', keySource: 'DEVICE_AGENT_API_KEY' };

  it('gives the credentials and the clock from one answer', async () => {
    const items = await checkCloud(
      { checkCredentials: async () => ({ status: 200, serverDate: 1, clockSkewMs: 400_000, roundTripMs: 5, privateDevices: 0 }) },
      target,
    );
    expect(items.map((i) => i.status)).toEqual(['ok', 'fail']);
    expect(items[1]!.finding).toMatch(/^clock: this host is 7 min behind the cloud/);
  });

  it('gives one failing item, and no clock, when the credentials are refused', async () => {
    const items = await checkCloud(
      {
        checkCredentials: async () => {
          throw new CloudAuthError('GET /devices', 401);
        },
      },
      target,
    );
    expect(items).toHaveLength(1);
    expect(items[0]!.status).toBe('fail');
  });
});

describe('inspectNodeId', () => {
  const base = {} as Settings;
  const tmp = () => mkdtempSync(join(tmpdir(), 'doctor-state-'));

  it('prefers the configured id and touches nothing', () => {
    expect(inspectNodeId({ ...base, nodeId: 'lab-1', stateDir: '/nonexistent/x' }, {})).toEqual({ kind: 'configured', id: 'lab-1' });
  });

  it('reads a kept id', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'node-id'), '5b1c\n');
    expect(inspectNodeId({ ...base, stateDir: dir }, {})).toEqual({ kind: 'kept', id: '5b1c', file: join(dir, 'node-id') });
  });

  it('says a new id can be kept in a directory still to be made, without making it', () => {
    const dir = join(tmp(), 'a', 'b');
    expect(inspectNodeId({ ...base, stateDir: dir }, {})).toEqual({ kind: 'new', dir });
    expect(unwritable(dir)).toBeUndefined();
    expect(() => readFileSync(join(dir, 'node-id'))).toThrow();
  });

  it('follows $STATE_DIRECTORY as systemd sets it', () => {
    const dir = tmp();
    expect(inspectNodeId(base, { STATE_DIRECTORY: `${dir}:/other` })).toEqual({ kind: 'new', dir });
  });

  it('fails where no directory can be made (a file in the way), whoever runs the test', () => {
    const root = tmp();
    writeFileSync(join(root, 'file'), '');
    const dir = join(root, 'file', 'state');
    const facts = inspectNodeId({ ...base, stateDir: dir }, {});
    expect(facts).toMatchObject({ kind: 'unwritable', dir });
  });

  it('calls an id file that cannot be read unreadable (a directory in its place)', () => {
    const dir = tmp();
    mkdirSync(join(dir, 'node-id'));
    expect(inspectNodeId({ ...base, stateDir: dir }, {})).toMatchObject({
      kind: 'unreadable',
      file: join(dir, 'node-id'),
      reason: 'a directory, not a regular file',
    });
  });
});
