// An adb server that answers host requests from a script, for the states the
// real adb server cannot be brought into in a test (no permissions, a USB
// serial, a server that accepts and never answers). Host protocol as in
// AOSP adb SERVICES.TXT: "%04x" + request, answered "OKAY" + "%04x" + text.
import net from 'node:net';

export class ScriptedAdbServer {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();
  readonly requests: string[] = [];

  /** answers: request -> payload; with `silent`, requests get no answer at all. */
  constructor(
    private readonly answers: Record<string, string>,
    private readonly silent = false,
  ) {}

  async start(): Promise<number> {
    const server = net.createServer((socket) => {
      let buffered = Buffer.alloc(0);
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length < 4) return;
        const length = Number.parseInt(buffered.subarray(0, 4).toString('latin1'), 16);
        if (buffered.length < 4 + length) return;
        const request = buffered.subarray(4, 4 + length).toString('latin1');
        this.requests.push(request);
        if (this.silent) return;
        const answer = this.answers[request];
        const text = Buffer.from(answer ?? `unknown host service ${request}`);
        const head = Buffer.from((answer === undefined ? 'FAIL' : 'OKAY') + text.length.toString(16).padStart(4, '0'));
        socket.end(Buffer.concat([head, text]));
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as net.AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The payload of host:devices behind an `adb devices` printout: the lines after its header. */
export function hostDevicesPayload(adbDevicesOutput: string): string {
  return adbDevicesOutput
    .split('\n')
    .filter((line) => line && !line.startsWith('List of devices attached'))
    .map((line) => `${line}\n`)
    .join('');
}
