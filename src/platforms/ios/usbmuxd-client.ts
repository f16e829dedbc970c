// usbmuxd client (plist protocol v1): one short connection per request, a long one for Listen, and Connect turning a
// connection into a tunnel to a phone's port. Every step, the connection setup included, has a deadline.
import { EventEmitter, once } from 'node:events';
import net from 'node:net';
import type { UsbmuxdAddress } from '../../config/usbmuxd-address.js';
import { withDeadline } from './deadline.js';
import { IosProtocolError } from './errors.js';
import { decodePlist, type Dict, encodeMux, muxDecoder, portToNetworkOrder } from './framing.js';

export interface MuxDevice {
  deviceId: number;
  udid: string;
  /** usbmuxd's LocationID (on Linux (bus << 16) | device address): where the phone is on the USB tree, which it cannot choose. */
  location?: number;
}

const CLIENT = { ClientVersionString: 'device-agent', ProgName: 'device-agent', kLibUSBMuxVersion: 3 };

function openMux(address: UsbmuxdAddress, timeoutMs: number) {
  const socket = 'path' in address ? net.createConnection(address.path) : net.createConnection(address.port, address.host);
  // Rejects on an error before the connection, and leaves no listener behind either way.
  const ready = once(socket, 'connect').then(() => socket);
  return withDeadline(ready, timeoutMs, `connecting to usbmuxd at ${address.label}`, () => socket.destroy());
}

/** Sends one request and waits for the answer with the same tag. */
interface Exchanged {
  body: Dict;
  decoder: ReturnType<typeof muxDecoder>;
  /** Messages that came in the same read after the answer (Listen's first Attached). */
  after: Dict[];
}

// Every request is the only one on its connection: tag 1.
function exchange(socket: net.Socket, body: Dict, step: string, timeoutMs: number) {
  const decoder = muxDecoder();
  const answer = new Promise<Exchanged>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      try {
        const msgs = decoder.push(chunk);
        const i = msgs.findIndex((m) => m.tag === 1);
        if (i >= 0) {
          cleanup();
          resolve({ body: msgs[i]!.body, decoder, after: msgs.slice(i + 1).map((m) => m.body) });
        }
      } catch (err) {
        cleanup();
        reject(err);
      }
    };
    const onEnd = () => {
      cleanup();
      reject(new IosProtocolError(`usbmuxd closed the connection during ${step}`));
    };
    const cleanup = () => {
      socket.removeListener('data', onData);
      socket.removeListener('close', onEnd);
      socket.removeListener('error', onEnd);
    };
    socket.on('data', onData);
    socket.once('close', onEnd);
    socket.once('error', onEnd);
  });
  socket.write(encodeMux({ ...CLIENT, ...body }, 1));
  return withDeadline(answer, timeoutMs, step, () => socket.destroy());
}

async function request(address: UsbmuxdAddress, body: Dict, timeoutMs: number) {
  const socket = await openMux(address, timeoutMs);
  try {
    return (await exchange(socket, body, `usbmuxd ${String(body.MessageType)}`, timeoutMs)).body;
  } finally {
    socket.destroy();
  }
}

const RESULTS: Record<number, string> = { 1: 'bad command', 2: 'bad device', 3: 'connection refused', 6: 'bad version' };

/** usbmuxd answered a request with a non-zero Result. */
function checkResult(request: string, body: Dict) {
  const code = Number(body.Number);
  if (body.MessageType === 'Result' && body.Number !== 0)
    throw new Error(`usbmuxd refused ${request} (result ${code}${RESULTS[code] ? `: ${RESULTS[code]}` : ''})`);
}

function deviceFromAttached(msg: Dict) {
  const props = (msg.Properties ?? {}) as Dict;
  const deviceId = Number(msg.DeviceID ?? props.DeviceID);
  const udid = typeof props.SerialNumber === 'string' ? props.SerialNumber : undefined;
  if (!Number.isInteger(deviceId) || !udid) return undefined;
  const location = Number(props.LocationID);
  return { deviceId, udid, ...(Number.isInteger(location) && location > 0 && { location }) };
}

export async function listDevices(address: UsbmuxdAddress, timeoutMs: number) {
  const body = await request(address, { MessageType: 'ListDevices' }, timeoutMs);
  checkResult('ListDevices', body);
  if (!Array.isArray(body.DeviceList)) throw new IosProtocolError('usbmuxd ListDevices answer has no DeviceList');
  return body.DeviceList.map((d) => deviceFromAttached(d as Dict)).filter((d) => d !== undefined);
}

/** The host's pair record for a phone, or undefined when usbmuxd has none (not paired). */
export async function readPairRecord(address: UsbmuxdAddress, udid: string, timeoutMs: number) {
  const body = await request(address, { MessageType: 'ReadPairRecord', PairRecordID: udid }, timeoutMs);
  if (!(body.PairRecordData instanceof Uint8Array)) {
    if (body.MessageType === 'Result' && body.Number !== 0) return undefined;
    throw new IosProtocolError('usbmuxd ReadPairRecord answer has no PairRecordData');
  }
  const record = decodePlist(body.PairRecordData);
  if (!record || typeof record !== 'object') throw new IosProtocolError('pair record is not a dictionary');
  return record as Dict;
}

/** A connection to `port` on the phone, through usbmuxd; the caller owns the socket. */
export async function connectDevice(address: UsbmuxdAddress, deviceId: number, port: number, timeoutMs: number) {
  const socket = await openMux(address, timeoutMs);
  try {
    const { body, decoder } = await exchange(
      socket,
      { MessageType: 'Connect', DeviceID: deviceId, PortNumber: portToNetworkOrder(port) },
      `usbmuxd Connect to device ${deviceId} port ${port}`,
      timeoutMs,
    );
    checkResult('Connect', body);
    const rest = decoder.rest();
    if (rest.length) socket.unshift(rest);
    return socket;
  } catch (err) {
    socket.destroy();
    throw err;
  }
}

/** usbmuxd's Listen: 'attached' (MuxDevice), 'detached' (deviceId), 'end' (Error | undefined) once usbmuxd is gone. */
export class MuxListener extends EventEmitter {
  private socket: net.Socket | undefined;

  async start(address: UsbmuxdAddress, timeoutMs: number) {
    const socket = await openMux(address, timeoutMs);
    this.socket = socket;
    let answer: Exchanged;
    try {
      answer = await exchange(socket, { MessageType: 'Listen' }, 'usbmuxd Listen', timeoutMs);
      checkResult('Listen', answer.body);
    } catch (err) {
      socket.destroy();
      this.socket = undefined;
      throw err;
    }
    const { decoder, after } = answer;
    const onMessage = (msg: Dict) => {
      if (msg.MessageType === 'Attached') {
        const dev = deviceFromAttached(msg);
        if (dev) this.emit('attached', dev);
      } else if (msg.MessageType === 'Detached') {
        const id = Number(msg.DeviceID);
        if (Number.isInteger(id)) this.emit('detached', id);
      }
    };
    for (const m of after) onMessage(m);
    let ended = false;
    const end = (err?: Error) => {
      if (ended) return;
      ended = true;
      this.socket = undefined;
      socket.destroy();
      this.emit('end', err);
    };
    socket.on('data', (chunk: Buffer) => {
      try {
        for (const m of decoder.push(chunk)) onMessage(m.body);
      } catch (err) {
        end(err as Error);
      }
    });
    socket.on('error', (err) => end(err));
    socket.on('close', () => end());
  }

  stop() {
    const s = this.socket;
    this.socket = undefined;
    this.removeAllListeners('end');
    s?.destroy();
  }
}
