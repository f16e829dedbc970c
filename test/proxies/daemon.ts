// A proxy from Debian's packages run by a test: started in the foreground on
// loopback with a configuration written to a temp dir, ready once its port
// accepts connections, stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { systemTool } from '../support/system-tool.js';

export class ProxyDaemon {
  output = '';
  private child: ChildProcess | undefined;

  constructor(
    readonly name: string,
    private readonly command: string,
    private readonly args: string[],
  ) {}

  async start(port: number, timeoutMs = 15_000): Promise<void> {
    const child = spawn(systemTool(this.command), this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    child.stdout?.on('data', (c: Buffer) => (this.output += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (this.output += c.toString()));
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`${this.name} exited with ${code} before listening:\n${this.output}`))),
    );
    const deadline = Date.now() + timeoutMs;
    const listening = (async () => {
      while (!(await accepts(port))) {
        if (Date.now() > deadline) throw new Error(`${this.name} not listening on ${port} within ${timeoutMs} ms:\n${this.output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await Promise.race([listening, exited]);
    exited.catch(() => undefined);
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
