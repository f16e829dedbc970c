// The device side of the transport, checked packet by packet with a bare
// TCP host instead of adb: what adb tolerates is not proof of correctness.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  A_AUTH,
  A_CLSE,
  A_CNXN,
  A_OKAY,
  A_OPEN,
  A_VERSION_SKIP_CHECKSUM,
  A_WRTE,
  AUTH_RSAPUBLICKEY,
  AUTH_SIGNATURE,
  AUTH_TOKEN,
  PacketDecoder,
  commandName,
  encodePacket,
  parseBanner,
  type Packet,
} from './packet.js';
import { loadProfile, makeProfile, withSerial } from './profile.js';
import { SimDevice, type SimDeviceOptions } from './sim-device.js';

class BareHost {
  private readonly queue: Packet[] = [];
  private waiter: (() => void) | undefined;
  closed = false;

  private constructor(private readonly socket: net.Socket) {
    const decoder = new PacketDecoder();
    socket.on('data', (chunk: Buffer) => {
      this.queue.push(...decoder.push(chunk));
      this.waiter?.();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on('error', () => undefined);
  }

  static connect(port: number): Promise<BareHost> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(new BareHost(socket)));
      socket.once('error', reject);
    });
  }

  send(command: number, arg0: number, arg1: number, data: string | Buffer = Buffer.alloc(0)): void {
    this.socket.write(encodePacket({ command, arg0, arg1, data: Buffer.from(data) }));
  }

  /** The next packet, or undefined if none comes within `ms` (or the device hung up). */
  async next(ms = 3000): Promise<Packet | undefined> {
    const deadline = Date.now() + ms;
    while (this.queue.length === 0 && !this.closed && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.queue.shift();
  }

  async expect(command: number): Promise<Packet> {
    const packet = await this.next();
    if (!packet) throw new Error(`expected ${commandName(command)}, got nothing`);
    expect(commandName(packet.command)).toBe(commandName(command));
    return packet;
  }

  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  handshake(maxData = 256 * 1024): void {
    this.send(A_CNXN, A_VERSION_SKIP_CHECKSUM, maxData, 'host::features=cmd\0');
  }

  close(): void {
    this.socket.destroy();
  }
}

const devices: SimDevice[] = [];
const hosts: BareHost[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) host.close();
  await Promise.all(devices.splice(0).map((device) => device.stop()));
});

async function setup(options: Partial<SimDeviceOptions> = {}): Promise<{ device: SimDevice; host: BareHost }> {
  const device = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'PROTO1'), ...options });
  devices.push(device);
  const host = await BareHost.connect(await device.start());
  hosts.push(host);
  return { device, host };
}

describe('handshake', () => {
  it('answers CNXN with its version, the smaller maxdata and a device banner without shell_v2', async () => {
    const { host } = await setup();
    host.handshake(4096);
    const cnxn = await host.expect(A_CNXN);
    expect(cnxn.arg0).toBe(A_VERSION_SKIP_CHECKSUM);
    expect(cnxn.arg1).toBe(4096);
    const banner = parseBanner(cnxn.data);
    expect(banner.systemType).toBe('device');
    expect(banner.props['ro.product.model']).toBe('Pixel 8 Pro');
    expect(banner.features).not.toContain('shell_v2');
  });

  it('unauthorized: a token, a new token per refused signature, silence after the public key', async () => {
    const { host } = await setup({ mode: 'unauthorized' });
    host.handshake();
    const first = await host.expect(A_AUTH);
    expect(first.arg0).toBe(AUTH_TOKEN);
    expect(first.data.length).toBe(20);
    host.send(A_AUTH, AUTH_SIGNATURE, 0, Buffer.alloc(256, 1));
    const second = await host.expect(A_AUTH);
    expect(second.arg0).toBe(AUTH_TOKEN);
    expect(second.data.equals(first.data)).toBe(false);
    host.send(A_AUTH, AUTH_RSAPUBLICKEY, 0, 'QUFBQQ== user@host\0');
    expect(await host.next(300)).toBeUndefined();
  });

  it('unauthorized then set ready: the waiting connection gets its CNXN', async () => {
    const { device, host } = await setup({ mode: 'unauthorized' });
    host.handshake();
    await host.expect(A_AUTH);
    host.send(A_AUTH, AUTH_RSAPUBLICKEY, 0, 'QUFBQQ== user@host\0');
    device.setMode('ready');
    await host.expect(A_CNXN);
  });

  it('offline: never answers CNXN, and ignores OPEN', async () => {
    const { host } = await setup({ mode: 'offline' });
    host.handshake();
    host.send(A_OPEN, 1, 0, 'shell:echo hi\0');
    expect(await host.next(300)).toBeUndefined();
  });

  it('hangs up on a packet with a bad magic', async () => {
    const { host } = await setup();
    host.handshake();
    await host.expect(A_CNXN);
    const bad = encodePacket({ command: A_OPEN, arg0: 1, arg1: 0, data: Buffer.from('shell:id\0') });
    bad.writeUInt32LE(0, 20);
    host.sendRaw(bad);
    expect(await host.next()).toBeUndefined();
    expect(host.closed).toBe(true);
  });
});

describe('streams', () => {
  it('shell: OKAY, then one WRTE of at most maxdata per host OKAY, then CLSE', async () => {
    const { device, host } = await setup({ profile: makeProfile('big', { big: 'x'.repeat(10_000) }) });
    host.handshake(4096);
    await host.expect(A_CNXN);
    host.send(A_OPEN, 7, 0, 'shell:big\0');
    const okay = await host.expect(A_OKAY);
    expect(okay.arg1).toBe(7);
    const localId = okay.arg0;
    let received = '';
    for (;;) {
      const packet = await host.next();
      if (!packet) throw new Error('stream stalled');
      if (packet.command === A_CLSE) {
        expect([packet.arg0, packet.arg1]).toEqual([localId, 7]);
        break;
      }
      expect(commandName(packet.command)).toBe('WRTE');
      expect([packet.arg0, packet.arg1]).toEqual([localId, 7]);
      expect(packet.data.length).toBeLessThanOrEqual(4096);
      received += packet.data.toString();
      // Nothing more may come before our OKAY.
      expect(await host.next(150)).toBeUndefined();
      host.send(A_OKAY, 7, localId);
    }
    expect(received).toBe('x'.repeat(10_000));
    expect(device.bytesWritten).toBe(10_000);
  });

  it('refuses other services with CLSE(0, remote-id) and does not count them', async () => {
    const { device, host } = await setup();
    host.handshake();
    await host.expect(A_CNXN);
    for (const [id, service] of [
      [11, 'sync:'],
      [12, 'reboot:'],
      [13, 'shell:'],
      [14, 'framebuffer:'],
    ] as const) {
      host.send(A_OPEN, id, 0, `${service}\0`);
      const close = await host.expect(A_CLSE);
      expect([close.arg0, close.arg1]).toEqual([0, id]);
    }
    expect(device.shellSessions).toBe(0);
  });

  it('host WRTE feeds the command stdin and is acknowledged', async () => {
    const { host } = await setup();
    host.handshake();
    await host.expect(A_CNXN);
    host.send(A_OPEN, 21, 0, 'shell:read line; echo "got $line"\0');
    const localId = (await host.expect(A_OKAY)).arg0;
    host.send(A_WRTE, 21, localId, 'hello\n');
    const ack = await host.expect(A_OKAY);
    expect([ack.arg0, ack.arg1]).toEqual([localId, 21]);
    const out = await host.expect(A_WRTE);
    expect(out.data.toString()).toBe('got hello\n');
  });

  it('host CLSE ends a hung command; the transport stays usable', async () => {
    const { device, host } = await setup({ hangOn: /sleepy/ });
    host.handshake();
    await host.expect(A_CNXN);
    host.send(A_OPEN, 31, 0, 'shell:sleepy\0');
    const localId = (await host.expect(A_OKAY)).arg0;
    host.send(A_CLSE, 31, localId);
    host.send(A_OPEN, 32, 0, 'shell:echo next\0');
    const okay = await host.expect(A_OKAY);
    expect(okay.arg1).toBe(32);
    expect((await host.expect(A_WRTE)).data.toString()).toBe('next\n');
    expect(device.commands).toEqual(['sleepy', 'echo next']);
  });

  it('vanishOn: the connection is reset as soon as the command arrives', async () => {
    const { device, host } = await setup({ vanishOn: /meminfo/ });
    host.handshake();
    await host.expect(A_CNXN);
    host.send(A_OPEN, 41, 0, 'shell:cat /proc/meminfo\0');
    expect(await host.next()).toBeUndefined();
    expect(host.closed).toBe(true);
    expect(device.shellSessions).toBe(1);
  });
});
