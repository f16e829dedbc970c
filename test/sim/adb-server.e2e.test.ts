import { Adb } from '@devicefarmer/adbkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AdbServer, reviveCrashed } from './adb-server.js';
import { encodeRequest, parseDevices } from './host-client.js';
import { loadProfile } from './profile.js';
import { SimDevice } from './sim-device.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

async function serverWithDevice(): Promise<{ server: AdbServer; device: SimDevice }> {
  const server = new AdbServer();
  cleanup.push(() => server.stop());
  await server.start();
  const device = new SimDevice({ profile: loadProfile('pixel-8-pro') });
  cleanup.push(() => device.stop());
  await device.start();
  await server.connect(device.port);
  await server.waitForState(device.serial, 'device');
  return { server, device };
}

describe('host protocol helpers', () => {
  it('frames requests with a 4-hex-digit length', () => {
    expect(encodeRequest('host:devices').toString()).toBe('000chost:devices');
  });

  it('parses adb devices text and skips odd lines', () => {
    expect(parseDevices('127.0.0.1:4000\tdevice\nemulator-5554\toffline\n\ngarbage\n')).toEqual([
      { serial: '127.0.0.1:4000', state: 'device' },
      { serial: 'emulator-5554', state: 'offline' },
    ]);
  });
});

describe('AdbServer', () => {
  it('runs a private server: own port, own HOME, env for the agent', async () => {
    const { server } = await serverWithDevice();
    expect(server.port).not.toBe(5037);
    expect(server.env).toEqual({
      ADB_SERVER_SOCKET: `tcp:127.0.0.1:${server.port}`,
      ANDROID_ADB_SERVER_PORT: String(server.port),
    });
    const version = await server.adb(['version']);
    expect(version.code).toBe(0);
  });

  it('kill: the server is gone for clients; restart brings the connected devices back', async () => {
    const { server, device } = await serverWithDevice();
    const port = server.port;
    await server.kill();
    expect(server.running).toBe(false);
    await expect(server.devices()).rejects.toThrow(/ECONNREFUSED/);
    // adbkit would run `adb start-server` on ECONNREFUSED; /bin/false keeps it from that.
    const client = Adb.createClient({ host: '127.0.0.1', port, bin: '/bin/false' });
    await expect(client.listDevices()).rejects.toThrow();

    await server.restart();
    expect(server.port).toBe(port);
    await server.waitForState(device.serial, 'device');
    expect(await client.listDevices()).toContainEqual({ id: device.serial, type: 'device' });
  });

  it('restart without reconnect: adb 29 has forgotten adb-connected devices', async () => {
    const { server, device } = await serverWithDevice();
    await server.restart({ reconnect: false });
    expect(await server.devices()).toEqual([]);
    // The device saw its connection drop and no new one.
    expect(device.connectionsAccepted).toBe(1);
  });

  it('restart({ evict }) removes a server that took the port meanwhile (as adbkit auto-starts one)', async () => {
    const { server, device } = await serverWithDevice();
    await server.kill();
    const stranger = new AdbServer({ port: server.port });
    cleanup.push(() => stranger.stop());
    await stranger.start();
    // Without eviction the port is taken, and start refuses to mistake it for ours.
    await expect(server.start()).rejects.toThrow(/another adb server/);
    await server.restart({ evict: true });
    await vi.waitFor(() => expect(stranger.running).toBe(false));
    await server.waitForState(device.serial, 'device');
  });

  it('stop kills the server process', async () => {
    const { server } = await serverWithDevice();
    const port = server.port;
    await server.stop();
    expect(server.running).toBe(false);
    const probe = new AdbServer({ port });
    await expect(probe.devices()).rejects.toThrow();
  });

  it("names a server that died on its own in the error of adb's list, not a bare ECONNREFUSED", async () => {
    const server = new AdbServer();
    cleanup.push(() => server.stop());
    await server.start();
    // As Debian's adb now and then dies of SIGSEGV: not through kill(), which the server takes for a test's own.
    process.kill(server.pid!, 'SIGKILL');
    await expect(server.devices()).rejects.toThrow(/^adb server \(pid \d+\) died: SIGKILL; host:devices on port \d+ failed: /);
  });

  it('reviveCrashed starts a server that died on its own again, on its port, with its phones; not one its test killed or stopped', async () => {
    const { server, device } = await serverWithDevice();
    const port = server.port;
    const killedByTest = new AdbServer();
    cleanup.push(() => killedByTest.stop());
    await killedByTest.start();
    await killedByTest.kill();
    const stopped = new AdbServer();
    await stopped.start();
    await stopped.stop();
    const gone = new SimDevice({ profile: loadProfile('pixel-8-pro') });
    await gone.start();
    await server.connect(gone.port);
    await server.waitForState(gone.serial, 'device');
    await gone.stop();
    process.kill(server.pid!, 'SIGKILL');
    expect(await server.crashWithin(5_000)).toMatch(/died: SIGKILL/);
    await reviveCrashed();
    expect(server.running).toBe(true);
    expect(server.port).toBe(port);
    expect(server.crash).toBeUndefined();
    await server.waitForState(device.serial, 'device');
    // The phone unplugged before the crash is not connected again, nor kept for the next restart.
    expect([...server.connected]).toEqual([device.port]);
    expect(killedByTest.running).toBe(false);
    expect(stopped.running).toBe(false);
  });
});
