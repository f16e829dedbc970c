// The client side of the adb server's smart socket (AOSP adb SERVICES.TXT):
// "%04x" length + request, answered "OKAY" or "FAIL" + "%04x" length + text.
import net from 'node:net';

export class AdbHostError extends Error {
  override name = 'AdbHostError';
}

export interface DeviceEntry {
  serial: string;
  state: string;
}

/** `host:devices` text ("serial\tstate" lines). Pure; odd lines are skipped. */
export function parseDevices(text: string): DeviceEntry[] {
  const entries: DeviceEntry[] = [];
  for (const line of text.split('\n')) {
    const [serial, state] = line.trim().split(/\s+/);
    if (serial && state) entries.push({ serial, state });
  }
  return entries;
}

export function encodeRequest(service: string): Buffer {
  const body = Buffer.from(service);
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0')), body]);
}

/**
 * Send one host request and return the length-prefixed answer. With
 * `bare`, an OKAY without a payload is the whole answer (host:kill, ...).
 */
export function hostRequest(port: number, service: string, options: { timeoutMs?: number; bare?: boolean } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (error: Error | undefined, value?: string): void => {
      if (settled) return;
      settled = true;
      socket.destroy();
      if (error) reject(error);
      else resolve(value ?? '');
    };
    socket.setTimeout(options.timeoutMs ?? 5000, () => finish(new AdbHostError(`${service}: no answer`)));
    socket.on('connect', () => socket.write(encodeRequest(service)));
    socket.on('error', (error) => finish(error));
    const tryParse = (ended: boolean): void => {
      if (received.length < 4) {
        if (ended) finish(new AdbHostError(`${service}: connection closed before a status`));
        return;
      }
      const status = received.subarray(0, 4).toString('latin1');
      if (status === 'OKAY' && options.bare) return finish(undefined, '');
      if (status !== 'OKAY' && status !== 'FAIL') return finish(new AdbHostError(`${service}: bad status ${status}`));
      if (received.length < 8) {
        if (ended) finish(status === 'OKAY' ? undefined : new AdbHostError(`${service}: FAIL`), '');
        return;
      }
      const length = Number.parseInt(received.subarray(4, 8).toString('latin1'), 16);
      if (received.length < 8 + length) {
        if (ended) finish(new AdbHostError(`${service}: answer cut short`));
        return;
      }
      const text = received.subarray(8, 8 + length).toString('utf8');
      if (status === 'FAIL') finish(new AdbHostError(`${service}: ${text}`));
      else finish(undefined, text);
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
  });
}

/**
 * `host:track-devices`: the whole list at once and again at each change, until the server closes it (it died or
 * restarted) or `close` is called. `ended` resolves then.
 */
export function trackDevices(port: number, onList: (entries: DeviceEntry[]) => void): { close: () => void; ended: Promise<void> } {
  const socket = net.connect({ host: '127.0.0.1', port });
  let received = Buffer.alloc(0);
  let okay = false;
  socket.on('connect', () => socket.write(encodeRequest('host:track-devices')));
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    if (!okay) {
      if (received.length < 4) return;
      if (received.subarray(0, 4).toString('latin1') !== 'OKAY') return void socket.destroy();
      okay = true;
      received = received.subarray(4);
    }
    while (received.length >= 4) {
      const length = Number.parseInt(received.subarray(0, 4).toString('latin1'), 16);
      if (received.length < 4 + length) return;
      onList(parseDevices(received.subarray(4, 4 + length).toString('utf8')));
      received = received.subarray(4 + length);
    }
  });
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  return { close: () => socket.destroy(), ended };
}
