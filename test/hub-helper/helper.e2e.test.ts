import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Uhubctl } from '../../src/hub/uhubctl.js';
import { hubHelperItems } from '../../src/hub-helper/doctor-item.js';
import { HubBed } from '../hub/hub-bed.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';

// The hub helper as systemd runs it (Accept=yes): a process per connection
// with the connection as its standard input and output (compiled serve.js),
// the stand-in uhubctl on its PATH; the agent's side is the compiled client
// run as the agent runs a hub tool (recovery.powerCycleCommand).

const dist = fileURLToPath(new URL('../../dist/src/hub-helper/', import.meta.url));
const standIn = fileURLToPath(new URL('../hub/uhubctl', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'hub-helper-'));
const socket = join(dir, 'hub.sock');
const hub = new HubBed();
const phone = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'HELPER01') });
let server: Server;
/** The helper's hubPorts (DEVICE_AGENT_HUB_PORTS), read by each connection's process. */
let hubPorts = 'HELPER01=1-1.4:3';
const client = `${process.execPath} ${join(dist, 'client.js')} --socket ${socket}`;

beforeAll(async () => {
  await hub.start();
  await phone.start();
  hub.attach('1-1.4', 3, phone);
  // A port the hub has but hubPorts does not map: the stand-in could switch it, the helper must not ask.
  hub.attach('1-1.4', 4, phone);
  symlinkSync(standIn, join(dir, 'uhubctl'));
  const env = { ...process.env, ...hub.env, PATH: `${dir}${delimiter}${process.env.PATH}` };
  server = createServer((conn: Socket) => {
    spawn(process.execPath, [join(dist, 'serve.js'), '--usb-sysfs', hub.env.UHUBCTL_STANDIN_SYSFS!, '--usb-devfs', hub.env.UHUBCTL_STANDIN_DEVFS!], {
      stdio: [conn, conn, 'ignore'],
      env: { ...env, DEVICE_AGENT_HUB_PORTS: hubPorts },
    }).on('exit', () => conn.destroy());
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await phone.stop();
  await hub.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the hub helper, through its socket', () => {
  it("switches a mapped port with uhubctl's arguments and prints uhubctl's output", async () => {
    const output = await new Uhubctl(client).switch('1-1.4', 3, 'off');
    expect(output).toMatch(/Sent power off request\n.*\n {2}Port 3: 0000 off/);
    expect(readFileSync(hub.disableFile('1-1.4', 3), 'utf8')).toBe('1');
    await new Uhubctl(client).switch('1-1.4', 3, 'on');
    expect(readFileSync(hub.disableFile('1-1.4', 3), 'utf8')).toBe('0');
  }, 20_000);

  it('refuses a port that is not in hubPorts, and switches nothing', async () => {
    const before = hub.switches.length;
    await expect(new Uhubctl(client).cycle('1-1.4', 4)).rejects.toThrow(/exit status 1/);
    expect(hub.switches).toHaveLength(before);
  });

  it("doctor's line: uhubctl and the hub's node as the helper sees them; a missing socket is a failure with what to do", async () => {
    const settings = {
      recovery: { powerCycle: true, powerCycleCommand: `/usr/lib/device-agent/bin/hub-request --socket ${socket}` },
      charge: { ways: [] },
      hubPorts: ['HELPER01=1-1.4:3'],
    };
    const [item] = await hubHelperItems(settings);
    expect(item).toMatchObject({ status: 'ok' });
    expect(item!.finding).toMatch(/uhubctl: .*uhubctl; hub 1-1.4: .*001\/002 opens; hub 1-1\.4: uhubctl lists port 3/);
    const [missing] = await hubHelperItems({ ...settings, recovery: { ...settings.recovery, powerCycleCommand: `hub-request --socket ${dir}/none.sock` } });
    expect(missing).toMatchObject({
      status: 'fail',
      advice: expect.stringMatching(/the hub helper that listens on .*none\.sock \(in a container: the hub service/),
    });
    expect(await hubHelperItems({ ...settings, recovery: { ...settings.recovery, powerCycleCommand: 'uhubctl' } })).toEqual([]);
  }, 20_000);

  it("doctor's line fails when uhubctl, asked by the helper, lists no hub at a mapped location", async () => {
    hubPorts = 'HELPER01=1-1.4:3,HELPER02=1-1.9:2';
    try {
      const [item] = await hubHelperItems({
        recovery: { powerCycle: true, powerCycleCommand: `hub-request --socket ${socket}` },
        charge: { ways: [] },
        hubPorts: hubPorts.split(','),
      });
      expect(item).toMatchObject({
        status: 'fail',
        finding: expect.stringMatching(/hub 1-1\.9 is not found by the hub tool \(it says: No compatible devices detected at location 1-1\.9!\)/),
      });
    } finally {
      hubPorts = 'HELPER01=1-1.4:3';
    }
  }, 20_000);
});

// listen.js: the helper where no systemd starts it (the container's hub
// service), a process of serve.js per connection on a socket of mode 0660.
describe('the hub helper as the container runs it (listen.js)', () => {
  it('listens on a socket only its user and group may open, and switches a mapped port through it', async () => {
    const listenSocket = join(dir, 'listen.sock');
    const env = { ...process.env, ...hub.env, PATH: `${dir}${delimiter}${process.env.PATH}`, DEVICE_AGENT_HUB_PORTS: hubPorts };
    const listener = spawn(
      process.execPath,
      [join(dist, 'listen.js'), '--socket', listenSocket, '--usb-sysfs', hub.env.UHUBCTL_STANDIN_SYSFS!, '--usb-devfs', hub.env.UHUBCTL_STANDIN_DEVFS!],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let log = '';
    listener.stderr.on('data', (c: Buffer) => (log += c.toString()));
    try {
      for (let i = 0; i < 100 && !/listening on/.test(log); i++) await new Promise((r) => setTimeout(r, 50));
      expect(log).toMatch(/listening on .*listen\.sock \(mode 0660/);
      expect(statSync(listenSocket).mode & 0o777).toBe(0o660);
      const viaListener = `${process.execPath} ${join(dist, 'client.js')} --socket ${listenSocket}`;
      await new Uhubctl(viaListener).switch('1-1.4', 3, 'off');
      expect(readFileSync(hub.disableFile('1-1.4', 3), 'utf8')).toBe('1');
      await new Uhubctl(viaListener).switch('1-1.4', 3, 'on');
      expect(readFileSync(hub.disableFile('1-1.4', 3), 'utf8')).toBe('0');
      await expect(new Uhubctl(viaListener).cycle('1-1.4', 4)).rejects.toThrow(/exit status 1/);
      expect(log).toMatch(/device-agent-hub: off hub 1-1\.4 port 3: done/);
    } finally {
      listener.kill('SIGTERM');
      await new Promise((r) => listener.once('exit', r));
    }
    expect(existsSync(listenSocket)).toBe(false);
  }, 30_000);
});
