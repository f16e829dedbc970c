// A TCP relay in front of the adb server that can kill device trackers: a
// crash-looping adb server or a tunnel that cuts idle connections, as the
// agent sees them. Every other request passes untouched, so shells, device
// lists and connects keep working while the trackers die; but for the long
// device list (`host:devices-l`), where it can also place devices on the
// USB tree: the simulated phones reach adb over TCP, and a USB phone's line
// carries its usb path (`SERIAL device usb:1-1.4.3 product:...`, as
// test/platforms/android/adb/fixtures/devices-l/ records adb printing it).
// It also answers `host:mdns:services` as adb 30 and later do, with the
// announcements a test sets (the adb 29 behind it has no mdns), since no real
// mdns runs here.
import net from 'node:net';

export interface AdbProxyOptions {
  /** The adb server's port on 127.0.0.1. */
  targetPort: number;
  /**
   * Each tracker connection is cut this long after the server's first answer
   * to it (its OKAY and first device list reach the client first). Absent:
   * trackers live. Settable at run time (`trackerLifetimeMs`).
   */
  trackerLifetimeMs?: number;
}

/** adb's one-shot long device list, whose answer the proxy may rewrite (usbPaths). */
const DEVICES_LONG = 'host:devices-l';

/** adb host services that stream device changes until the connection ends. */
const TRACKER_SERVICE = /^host:track-devices/;
const MDNS_SERVICES = 'host:mdns:services';

/** One service mdns announces, as adb 30 and later list it. */
export interface MdnsAnnouncement {
  instance: string;
  type: 'adb' | 'adb-tls-pairing' | 'adb-tls-connect';
  /** IPv4:PORT; '' for a service resolved on IPv6 only (Android 16's adb prints no address then). */
  address: string;
}

export class AdbProxy {
  /** Client connections relayed since start. */
  connections = 0;
  /** Tracker connections opened (host:track-devices*). */
  trackersOpened = 0;
  /** Tracker connections the proxy cut. */
  trackersCut = 0;
  trackerLifetimeMs: number | undefined;
  /** adb serial -> the usb path its line in the long device list gets, as a USB phone's has. */
  readonly usbPaths = new Map<string, string>();
  /**
   * What `host:mdns:services` answers, as adb 30 and later build it
   * (client/transport_mdns.cpp: `INSTANCE\tSERVICE\tIPV4:PORT\n` per
   * service; test/platforms/android/adb/fixtures/mdns/SOURCES.md): the adb 29
   * behind the proxy has no such service (it answers FAIL "unknown host
   * service", which passes through while this is undefined). A string is
   * answered as it is (garbage, a flood).
   */
  mdns: MdnsAnnouncement[] | string | undefined;
  /** host:mdns:services requests answered. */
  mdnsAsked = 0;
  /** Each host:connect relayed: its address, and how many mdns requests had been answered when it came. */
  readonly connects: { address: string; mdnsAsked: number }[] = [];

  private server: net.Server | undefined;
  private listenPort = 0;
  private readonly trackers = new Set<() => void>();
  private readonly sockets = new Set<net.Socket>();

  constructor(readonly options: AdbProxyOptions) {
    this.trackerLifetimeMs = options.trackerLifetimeMs;
  }

  get port(): number {
    return this.listenPort;
  }

  /** The agent's environment pointing at the proxy instead of the server. */
  get env(): Record<string, string> {
    return { ADB_SERVER_SOCKET: `tcp:127.0.0.1:${this.listenPort}`, ANDROID_ADB_SERVER_PORT: String(this.listenPort) };
  }

  async start(port = 0): Promise<number> {
    const server = net.createServer((client) => this.relay(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.listenPort = (server.address() as net.AddressInfo).port;
    return this.listenPort;
  }

  /** Cuts every tracker connection now; returns how many there were. */
  cutTrackers(): number {
    const cuts = [...this.trackers];
    for (const cut of cuts) cut();
    return cuts.length;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private relay(client: net.Socket): void {
    this.connections++;
    this.track(client);
    const upstream = net.connect(this.options.targetPort, '127.0.0.1');
    this.track(upstream);
    // A refused or dropped server is passed on as a dropped connection, as the client would see it.
    // A long device list being rewritten ends the client itself, once the answer is written.
    let rewriting = false;
    const close = (): void => {
      if (rewriting) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
    // The first request decides: 4 hex digits of length, then the service name.
    let head = Buffer.alloc(0);
    const onFirst = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      if (head.length < 4) return;
      const length = Number.parseInt(head.subarray(0, 4).toString('ascii'), 16);
      if (Number.isFinite(length) && head.length < 4 + length) return;
      client.off('data', onFirst);
      const service = Number.isFinite(length) ? head.subarray(4, 4 + length).toString('utf8') : '';
      if (service === MDNS_SERVICES && this.mdns !== undefined) {
        this.mdnsAsked++;
        upstream.destroy();
        const body = Buffer.from(
          typeof this.mdns === 'string' ? this.mdns : this.mdns.map((m) => `${m.instance}\t_${m.type}._tcp\t${m.address}\n`).join(''),
          'utf8',
        );
        client.end(Buffer.concat([Buffer.from(`OKAY${body.length.toString(16).padStart(4, '0')}`, 'ascii'), body]));
        return;
      }
      if (service.startsWith('host:connect:')) this.connects.push({ address: service.slice('host:connect:'.length), mdnsAsked: this.mdnsAsked });
      if (TRACKER_SERVICE.test(service)) this.watchTracker(client, upstream, close);
      if (service === DEVICES_LONG && this.usbPaths.size > 0) {
        rewriting = true;
        this.placeOnUsb(client, upstream);
      } else upstream.pipe(client);
      upstream.write(head);
      client.pipe(upstream);
    };
    client.on('data', onFirst);
  }

  /** The long device list's answer (OKAY, 4 hex digits of length, the lines), each placed line given its usb path. */
  private placeOnUsb(client: net.Socket, upstream: net.Socket): void {
    const chunks: Buffer[] = [];
    upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
    upstream.once('close', () => {
      const answer = Buffer.concat(chunks).toString('utf8');
      if (!answer.startsWith('OKAY')) {
        client.end(answer);
        return;
      }
      const lines = answer
        .slice(8)
        .split('\n')
        .map((line) => {
          const m = /^(\S+)(\s+)(\S+)(.*)$/.exec(line);
          const path = m && this.usbPaths.get(m[1]!);
          return m && path ? `${m[1]!}${m[2]!}${m[3]!} usb:${path}${m[4]!}` : line;
        })
        .join('\n');
      client.end(`OKAY${Buffer.byteLength(lines).toString(16).padStart(4, '0')}${lines}`);
    });
  }

  private watchTracker(client: net.Socket, upstream: net.Socket, close: () => void): void {
    this.trackersOpened++;
    let timer: NodeJS.Timeout | undefined;
    const cut = (): void => {
      if (!this.trackers.delete(cut)) return;
      clearTimeout(timer);
      this.trackersCut++;
      close();
    };
    this.trackers.add(cut);
    client.once('close', () => {
      clearTimeout(timer);
      this.trackers.delete(cut);
    });
    upstream.once('data', () => {
      const lifetime = this.trackerLifetimeMs;
      if (lifetime !== undefined) timer = setTimeout(cut, lifetime);
    });
  }
}
