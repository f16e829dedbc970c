// A TCP relay in front of the real adb server that cuts device-tracking
// connections (host:track-devices) a moment after they start, as a
// crash-looping adb server or a tunnel that drops idle connections does.
// Every other request (device lists, shells, connect) goes through untouched,
// so the devices themselves keep answering.
import net from 'node:net';

export interface TrackerCutterOptions {
  /** The adb server's port. */
  adbPort: number;
  /** How long after the server answered a tracker's request its connection is cut. */
  cutAfterMs?: number;
}

export class TrackerCutter {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  /** While true, every tracker is cut; false lets them live. */
  cutting = true;
  /** Tracker connections opened through the relay. */
  trackers = 0;

  constructor(private readonly options: TrackerCutterOptions) {}

  get port(): number {
    return (this.server?.address() as net.AddressInfo | null)?.port ?? 0;
  }

  /** For the agent's environment, in place of the adb server's own. */
  get env(): Record<string, string> {
    return { ADB_SERVER_SOCKET: `tcp:127.0.0.1:${this.port}`, ANDROID_ADB_SERVER_PORT: String(this.port) };
  }

  async start(): Promise<void> {
    this.server = net.createServer((client) => this.relay(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Cuts the trackers open now, however long they have lived. */
  cutOpen(): void {
    for (const s of this.open) s.destroy();
  }

  private readonly open = new Set<net.Socket>();

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.options.adbPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    let request = Buffer.alloc(0);
    let tracker = false;
    client.on('data', (chunk: Buffer) => {
      // The first request of a connection: 4 hex digits of length, then the service name.
      if (request.length < 4 + 64) {
        request = Buffer.concat([request, chunk]);
        if (!tracker && /^[0-9a-f]{4}host:track-devices/i.test(request.toString('latin1'))) {
          tracker = true;
          this.trackers++;
          this.open.add(client);
          client.on('close', () => this.open.delete(client));
        }
      }
      upstream.write(chunk);
    });
    let cutArmed = false;
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (tracker && this.cutting && !cutArmed) {
        cutArmed = true;
        setTimeout(() => {
          if (this.cutting) client.destroy();
        }, this.options.cutAfterMs ?? 50);
      }
    });
  }
}
