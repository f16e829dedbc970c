// Simulated devices driven through the REAL adb server (and adbkit, as the
// agent does). Every test owns its devices; the server is shared per file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Adb } from '@devicefarmer/adbkit';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AdbServer } from './adb-server.js';
import { DEVICES_DIR, loadProfile, parseGetprop, withProps, withSerial } from './profile.js';
import { SimDevice, type SimDeviceOptions } from './sim-device.js';

const server = new AdbServer();
const devices: SimDevice[] = [];
const pixel = loadProfile('pixel-8-pro');
const recordedProps = parseGetprop(readFileSync(join(DEVICES_DIR, 'pixel-8-pro', 'getprop.txt'), 'utf8'));

async function startDevice(options: Partial<SimDeviceOptions> & { serial?: string } = {}): Promise<SimDevice> {
  const { serial = 'SIMTEST01', ...rest } = options;
  const device = new SimDevice({ ...rest, profile: rest.profile ?? withSerial(pixel, serial) });
  devices.push(device);
  await device.start();
  return device;
}

async function connectReady(options: Partial<SimDeviceOptions> & { serial?: string } = {}): Promise<SimDevice> {
  const device = await startDevice(options);
  await server.connect(device.port);
  await server.waitForState(device.serial, 'device');
  return device;
}

async function adbkitShell(serial: string, command: string): Promise<string> {
  const client = Adb.createClient({ host: '127.0.0.1', port: server.port });
  const stream = await client.getDevice(serial).shell(command);
  return (await Adb.util.readAll(stream)).toString();
}

beforeAll(async () => {
  await server.start();
});

afterEach(async () => {
  await Promise.all(
    devices.splice(0).map(async (device) => {
      await server.disconnect(device.port).catch(() => undefined);
      await device.stop();
    }),
  );
});

afterAll(async () => {
  await server.stop();
});

describe('a ready device', () => {
  it('is listed as device and answers adb shell getprop from its recording', async () => {
    const device = await connectReady({ serial: 'SIMREADY1' });
    expect(await server.state(device.serial)).toBe('device');
    const model = await server.adb(['-s', device.serial, 'shell', 'getprop', 'ro.product.model']);
    expect(model.stdout).toBe(`${recordedProps.get('ro.product.model')}\n`);
    const serialno = await server.adb(['-s', device.serial, 'shell', 'getprop ro.serialno']);
    expect(serialno.stdout).toBe('SIMREADY1\n');
  });

  it('announces the recorded product in its banner (adb devices -l)', async () => {
    const device = await connectReady();
    const listing = await server.adb(['devices', '-l']);
    const line = listing.stdout.split('\n').find((l) => l.startsWith(device.serial)) ?? '';
    expect(line).toContain(`product:${recordedProps.get('ro.product.name')}`);
    expect(line).toContain(`model:${recordedProps.get('ro.product.model')!.replace(/ /g, '_')}`);
    expect(line).toContain(`device:${recordedProps.get('ro.product.device')}`);
  });

  it('streams output larger than maxdata intact, one WRTE per host OKAY', async () => {
    const device = await connectReady({ maxData: 4096 });
    const out = await adbkitShell(device.serial, 'getprop');
    expect(out.length).toBeGreaterThan(4096 * 4);
    expect(out).toBe(withSerial(pixel, 'SIMTEST01').commands.get('getprop')!.output);
    expect(device.bytesWritten).toBe(Buffer.byteLength(out));
  });

  it('is listed and driven by adbkit like a phone', async () => {
    const device = await connectReady();
    const client = Adb.createClient({ host: '127.0.0.1', port: server.port });
    const listed = await client.listDevices();
    expect(listed).toContainEqual({ id: device.serial, type: 'device' });
    const out = await adbkitShell(device.serial, 'echo ==A==; getprop ro.product.device; echo ==B==; nosuch');
    expect(out).toBe(`==A==\n${recordedProps.get('ro.product.device')}\n==B==\n/system/bin/sh: nosuch: inaccessible or not found\n`);
  });

  it('counts shell sessions and their commands, and resets the counts', async () => {
    const device = await connectReady();
    await adbkitShell(device.serial, 'getprop ro.serialno');
    await adbkitShell(device.serial, 'echo one');
    await server.adb(['-s', device.serial, 'shell', 'echo two']);
    expect(device.shellSessions).toBe(3);
    expect(device.commands).toEqual(['getprop ro.serialno', 'echo one', 'echo two']);
    device.resetCounts();
    expect(device.shellSessions).toBe(0);
    expect(device.commands).toEqual([]);
  });

  it('refuses services it does not offer (sync:, reboot:) and stays usable', async () => {
    const device = await connectReady();
    const pull = await server.adb(['-s', device.serial, 'pull', '/proc/version', '/dev/null']);
    expect(pull.code).not.toBe(0);
    expect(device.shellSessions).toBe(0);
    expect(await adbkitShell(device.serial, 'echo still here')).toBe('still here\n');
  });

  it("pty profiles (Android 6 and older) turn every newline into CRLF, the script's own too", async () => {
    const device = await connectReady({ profile: { ...withSerial(pixel, 'OLD1'), pty: true } });
    const out = await adbkitShell(device.serial, 'echo ==A==; getprop ro.serialno');
    expect(out).toBe('==A==\r\nOLD1\r\n');
  });

  it('delays every shell answer by delayMs', async () => {
    const device = await connectReady({ delayMs: 300 });
    const started = Date.now();
    expect(await adbkitShell(device.serial, 'echo late')).toBe('late\n');
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });
});

describe('a battery the test charges or drains', () => {
  it('answers dumpsys battery with the level set, from the next shell on', async () => {
    const device = await connectReady({ serial: 'SIMBATT1', profile: withSerial(loadProfile('samsung-galaxy-s25-plus'), 'SIMBATT1') });
    const level = async () => /^\s*level: (\d+)$/m.exec(await adbkitShell(device.serial, 'dumpsys battery'))?.[1];
    expect(await level()).toBe('100');
    await device.setBatteryLevel(42);
    expect(await level()).toBe('42');
  });
});

describe('settings a test keeps as state (Samsung battery protection)', () => {
  const samsung = (serial: string) => withSerial(loadProfile('samsung-galaxy-s25-plus'), serial);

  it('answers settings get and put of a kept key per device, in the script shell and through the executable', async () => {
    const one = await connectReady({ serial: 'SIMSET01', profile: samsung('SIMSET01'), settings: { protect_battery: '0' } });
    const two = await connectReady({ serial: 'SIMSET02', profile: samsung('SIMSET02'), settings: { protect_battery: 'null' } });
    expect(await adbkitShell(one.serial, 'settings get global protect_battery')).toBe('0\n');
    expect(await adbkitShell(two.serial, 'settings get global protect_battery')).toBe('null\n');
    // Android's put prints nothing; the next get reads the new value, on this device only.
    expect(await adbkitShell(one.serial, 'settings put global protect_battery 1')).toBe('');
    expect(await adbkitShell(one.serial, 'settings get global protect_battery')).toBe('1\n');
    expect(await adbkitShell(two.serial, 'settings get global protect_battery')).toBe('null\n');
    // `command settings` skips the function and runs the executable: the same state.
    expect(await adbkitShell(one.serial, 'command settings get global protect_battery')).toBe('1\n');
    expect(await one.setting('protect_battery')).toBe('1');
    await two.setSetting('protect_battery', '0');
    expect(await adbkitShell(two.serial, 'settings get global protect_battery')).toBe('0\n');
    // A key not kept still answers from the recordings (none here: the simulator says so).
    expect(await adbkitShell(one.serial, 'settings get global device_name')).toMatch(/no recording of "settings get global device_name"/);
  });

  it('a phone that ignores the write keeps the old value, and takes writes again when told', async () => {
    const device = await connectReady({ serial: 'SIMSET03', profile: samsung('SIMSET03'), settings: { protect_battery: '0' }, ignoresSettingWrites: true });
    expect(await adbkitShell(device.serial, 'settings put global protect_battery 1')).toBe('');
    expect(await adbkitShell(device.serial, 'settings get global protect_battery')).toBe('0\n');
    await device.ignoreSettingWrites(false);
    await adbkitShell(device.serial, 'settings put global protect_battery 1');
    expect(await adbkitShell(device.serial, 'settings get global protect_battery')).toBe('1\n');
  });

  it('a device without kept settings has no settings command unless its profile records one', async () => {
    const device = await connectReady({ serial: 'SIMSET04', profile: samsung('SIMSET04') });
    expect(await adbkitShell(device.serial, 'settings get global protect_battery')).toMatch(/settings: inaccessible or not found/);
  });
});

describe('misbehaving devices', () => {
  it('hangOn: the matching command never ends while other streams still work', async () => {
    const device = await connectReady({ hangOn: /dumpsys/ });
    const client = Adb.createClient({ host: '127.0.0.1', port: server.port });
    const hung = await client.getDevice(device.serial).shell('dumpsys battery');
    let ended = false;
    let received = 0;
    hung.on('data', (chunk: Buffer) => (received += chunk.length));
    hung.on('end', () => (ended = true));
    // A second stream on the same transport completes while the first hangs.
    expect(await adbkitShell(device.serial, 'echo alive')).toBe('alive\n');
    expect(ended).toBe(false);
    expect(received).toBe(0);
    expect(device.commands).toEqual(['dumpsys battery', 'echo alive']);
    hung.destroy();
  });

  it('commandHangOn: one recorded command inside the script hangs; timeout cuts it, the rest answers', async () => {
    const profile = { ...withSerial(pixel, 'HANG1'), wrappers: ['timeout'] };
    profile.commands = new Map(profile.commands).set('dumpsys battery', { output: 'never\n', exitCode: 0 });
    const device = await connectReady({ profile, commandHangOn: /^dumpsys battery$/ });
    const out = await adbkitShell(device.serial, 'echo A; timeout 1 dumpsys battery; echo "rc=$?"; getprop ro.serialno');
    expect(out).toBe('A\nrc=124\nHANG1\n');
  });

  it('vanishOn: the device drops off mid-probe; adb reconnects it', async () => {
    const device = await connectReady({ vanishOn: /cat \/proc\/meminfo/ });
    const result = await server.adb(['-s', device.serial, 'shell', 'echo before; cat /proc/meminfo']);
    expect(result.stdout).toBe('');
    expect(result.code).not.toBe(0);
    expect(device.commands).toEqual(['echo before; cat /proc/meminfo']);
    // adb 29 retries a dropped TCP device after about a quarter second.
    await vi.waitFor(() => expect(device.connectionsAccepted).toBe(2), { timeout: 5000 });
    await server.waitForState(device.serial, 'device');
  });

  it('unauthorized: listed as unauthorized, shell refused, accepted when set ready', async () => {
    const device = await startDevice({ mode: 'unauthorized' });
    const message = await server.connect(device.port);
    expect(message).toMatch(/failed to authenticate/);
    await server.waitForState(device.serial, 'unauthorized');
    const shell = await server.adb(['-s', device.serial, 'shell', 'echo hi']);
    expect(shell.code).not.toBe(0);
    expect(shell.stderr).toMatch(/unauthorized/);
    expect(device.shellSessions).toBe(0);
    // The user taps "Allow": the waiting connection completes, no reconnect.
    device.setMode('ready');
    await server.waitForState(device.serial, 'device');
    expect(device.connectionsAccepted).toBe(1);
  });

  it('offline: never answers CNXN and stays offline', async () => {
    const device = await startDevice({ mode: 'offline' });
    await server.connect(device.port, { wait: false });
    await server.waitForState(device.serial, 'offline');
    const shell = await server.adb(['-s', device.serial, 'shell', 'echo hi']);
    expect(shell.code).not.toBe(0);
    expect(device.shellSessions).toBe(0);
  });

  it('disconnect: offline at once, back as device after adb reconnects', async () => {
    const device = await connectReady();
    device.disconnect();
    // Until adb notices, it still lists `device`: wait for the new connection first.
    await vi.waitFor(() => expect(device.connectionsAccepted).toBe(2), { timeout: 5000 });
    await server.waitForState(device.serial, 'device');
  });

  it('unplug: stays offline while the port refuses connections', async () => {
    const device = await connectReady();
    await device.unplug();
    await server.waitForState(device.serial, 'offline');
    const shell = await server.adb(['-s', device.serial, 'shell', 'echo hi']);
    expect(shell.code).not.toBe(0);
    expect(device.connectionsAccepted).toBe(1);
  });
});

describe('fault classes', () => {
  const dump = withSerial(pixel, 'SIMTEST01').commands.get('getprop')!.output;

  async function rawShell(serial: string, command: string): Promise<Buffer> {
    const client = Adb.createClient({ host: '127.0.0.1', port: server.port });
    return Adb.util.readAll(await client.getDevice(serial).shell(command));
  }

  it('cut: the output stops right after a text and the stream ends as if whole; the phone stays connected', async () => {
    const device = await connectReady({ cut: { on: /^getprop$/, after: '[ro.build.' } });
    const out = await adbkitShell(device.serial, 'getprop');
    expect(out).toBe(dump.slice(0, dump.indexOf('[ro.build.') + '[ro.build.'.length));
    expect(device.cutSessions).toBe(1);
    // Other commands are not cut, on the same connection.
    expect(await adbkitShell(device.serial, 'echo still here')).toBe('still here\n');
    expect(device.connectionsAccepted).toBe(1);
    expect(await server.state(device.serial)).toBe('device');
  });

  it('cut: after a number of bytes, for a number of sessions, then whole again', async () => {
    const device = await connectReady({ cut: { after: 100, times: 2 } });
    expect((await rawShell(device.serial, 'getprop')).length).toBe(100);
    expect((await rawShell(device.serial, 'getprop')).length).toBe(100);
    expect(await adbkitShell(device.serial, 'getprop')).toBe(dump);
    device.setCut({ after: 10 });
    expect((await rawShell(device.serial, 'getprop')).length).toBe(10);
    device.setCut(undefined);
    expect(await adbkitShell(device.serial, 'getprop')).toBe(dump);
    expect(device.cutSessions).toBe(3);
  });

  it('cut with dropAfterMs: the transport drops a moment after the cut; adb connects again', async () => {
    const device = await connectReady({ cut: { on: /^getprop$/, after: 2000, dropAfterMs: 200 } });
    const out = await rawShell(device.serial, 'getprop');
    expect(out.length).toBe(2000);
    await vi.waitFor(() => expect(device.connectionsAccepted).toBe(2), { timeout: 5000 });
    await server.waitForState(device.serial, 'device');
  });

  it('slowCommands: the named commands answer late inside a session, the others at once; timeout still cuts at its deadline', async () => {
    const profile = { ...withSerial(pixel, 'LAG1'), wrappers: ['timeout'] };
    profile.commands = new Map(profile.commands).set('dumpsys battery', { output: 'level: 50\n', exitCode: 0 });
    const device = await connectReady({ profile, slowCommands: { names: ['dumpsys', 'wm'], ms: 1200 } });
    let started = Date.now();
    expect(await adbkitShell(device.serial, 'getprop ro.serialno; echo x')).toBe('LAG1\nx\n');
    expect(Date.now() - started).toBeLessThan(1200);
    started = Date.now();
    expect(await adbkitShell(device.serial, 'dumpsys battery')).toBe('level: 50\n');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    // A framework command the recording lacks lags all the same (a real phone has it).
    started = Date.now();
    await adbkitShell(device.serial, 'wm size');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    // toybox's timeout kills a command that would answer after its deadline: a command 5 s late
    // is cut at the 1 s deadline (the margin is for a loaded machine, far below the 5 s).
    device.setSlowCommands({ names: ['dumpsys'], ms: 5_000 });
    started = Date.now();
    expect(await adbkitShell(device.serial, 'timeout 1 dumpsys battery; echo "rc=$?"')).toBe('rc=124\n');
    expect(Date.now() - started).toBeLessThan(3_000);
    device.setSlowCommands(undefined);
    started = Date.now();
    expect(await adbkitShell(device.serial, 'dumpsys battery')).toBe('level: 50\n');
    expect(Date.now() - started).toBeLessThan(1200);
  });

  it('uptime: /proc/uptime advances with time from the recording; setUptime and reboot move the boot', async () => {
    const profile = withSerial(pixel, 'UP1');
    profile.commands = new Map(profile.commands).set('cat /proc/uptime', { output: '100.00 350.00\n', exitCode: 0 });
    const device = await connectReady({ profile });
    const read = async (): Promise<[number, number]> => {
      const [up, idle] = (await adbkitShell(device.serial, 'cat /proc/uptime')).trim().split(' ').map(Number);
      return [up!, idle!];
    };
    const [first, idle] = await read();
    expect(first).toBeGreaterThanOrEqual(100);
    expect(first).toBeLessThan(105);
    expect(idle).toBeGreaterThanOrEqual(350);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const [second] = await read();
    expect(second - first).toBeGreaterThanOrEqual(1);
    expect(second - first).toBeLessThan(4);
    expect(Math.abs(device.uptimeSeconds - second)).toBeLessThan(1);
    device.setUptime(5000);
    expect((await read())[0]).toBeGreaterThanOrEqual(5000);
    expect((await read())[0]).toBeLessThan(5004);
    await device.reboot({ uptimeSeconds: 20 });
    await vi.waitFor(() => expect(device.connectionsAccepted).toBe(2), { timeout: 5000 });
    await server.waitForState(device.serial, 'device');
    const [rebooted] = await read();
    expect(rebooted).toBeGreaterThanOrEqual(20);
    expect(rebooted).toBeLessThan(25);
  });

  it('uptime: a new uptime recording given with setProfile is a reboot that starts with the new recordings, never beside the old ones', async () => {
    const withUptime = (up: string, release: string) => {
      const profile = withProps(withSerial(pixel, 'UP2'), { 'ro.build.version.release': release });
      profile.commands = new Map(profile.commands).set('cat /proc/uptime', { output: `${up} 9000.00\n`, exitCode: 0 });
      return profile;
    };
    const device = await connectReady({ profile: withUptime('5000.00', '14') });
    const read = async (): Promise<[string, number]> => {
      const [release, up] = (await adbkitShell(device.serial, 'getprop ro.build.version.release; cat /proc/uptime')).trim().split(/\s+/);
      return [release!, Number(up)];
    };
    expect(await read()).toEqual(['14', expect.any(Number)]);
    // What a shell reads while the new stubs are written: the old phone whole, or the rebooted one whole.
    const changing = device.setProfile(withUptime('40.00', '15'));
    expect(device.uptimeSeconds).toBeGreaterThanOrEqual(5000);
    const seen: Array<[string, number]> = [];
    let done = false;
    void changing.finally(() => (done = true));
    while (!done) seen.push(await read());
    await changing;
    seen.push(await read());
    for (const [release, up] of seen) expect(release === '14' ? up >= 5000 : release === '15' && up >= 40 && up < 45).toBe(true);
    expect(seen.at(-1)![0]).toBe('15');
  });

  it('odd bytes: a property with NUL, control characters and invalid UTF-8 is printed byte for byte', async () => {
    const odd = Buffer.from([0x4c, 0x61, 0x62, 0x00, 0x70, 0x68, 0x1b, 0x5b, 0x07, 0xff, 0xfe, 0xc3, 0x28]);
    const device = await connectReady({ profile: withSerial(withProps(pixel, { 'ro.product.model': odd }), 'ODD1') });
    expect(await rawShell(device.serial, 'getprop ro.product.model')).toEqual(Buffer.concat([odd, Buffer.from('\n')]));
    const all = await rawShell(device.serial, 'getprop');
    expect(all.includes(Buffer.concat([Buffer.from('[ro.product.model]: ['), odd, Buffer.from(']\n')]))).toBe(true);
    // The serial set after the odd property (as SimFarm does) keeps the odd bytes.
    expect(all.includes(Buffer.from('[ro.serialno]: [ODD1]\n'))).toBe(true);
  });
});
