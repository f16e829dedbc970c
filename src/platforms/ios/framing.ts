// Wire framing, pure: usbmuxd's 16-byte little-endian header (length, version 1, message type 8 = plist, tag) and
// lockdown's 4-byte big-endian length, both around a plist. Plists are XML or bplist00 both ways.
import * as plist from 'plist';
import { IosProtocolError } from './errors.js';

export type Dict = Record<string, unknown>;

const MUX_HEADER = 16;
const MUX_VERSION_PLIST = 1;
const MUX_MESSAGE_PLIST = 8;
/** No honest usbmuxd or lockdown message comes near this; a bigger length means a broken stream. */
const MAX_FRAME = 4 << 20;

export function decodePlist(payload: Uint8Array): unknown {
  const buf = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  try {
    if (buf.subarray(0, 8).toString('latin1') === 'bplist00') return plist.parseBinary(buf);
    const text = buf.toString('utf8');
    // xmldom reports garbage on the console before throwing; refuse it first.
    if (!/^\s*(<\?xml|<!DOCTYPE|<plist)/.test(text)) throw new Error('neither XML nor bplist00');
    return plist.parse(text);
  } catch (err) {
    throw new IosProtocolError(`unreadable plist (${(err as Error).message})`);
  }
}

function asDict(value: unknown) {
  if (value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Uint8Array)) return value as Dict;
  throw new IosProtocolError('plist is not a dictionary');
}

export function encodeMux(body: Dict, tag: number): Buffer {
  const payload = Buffer.from(plist.build(body as never), 'utf8');
  const head = Buffer.alloc(MUX_HEADER);
  head.writeUInt32LE(MUX_HEADER + payload.length, 0);
  head.writeUInt32LE(MUX_VERSION_PLIST, 4);
  head.writeUInt32LE(MUX_MESSAGE_PLIST, 8);
  head.writeUInt32LE(tag, 12);
  return Buffer.concat([head, payload]);
}

export function encodeLockdown(body: Dict): Buffer {
  const payload = Buffer.from(plist.build(body as never), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length);
  return Buffer.concat([head, payload]);
}

/** Splits a usbmuxd byte stream into {tag, body} messages. */
export class MuxDecoder {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: { tag: number; body: Dict }[] = [];
    while (this.buf.length >= MUX_HEADER) {
      const len = this.buf.readUInt32LE(0);
      if (len < MUX_HEADER || len > MAX_FRAME) throw new IosProtocolError(`usbmuxd frame length ${len} out of range`);
      if (this.buf.length < len) break;
      const type = this.buf.readUInt32LE(8);
      const tag = this.buf.readUInt32LE(12);
      const payload = this.buf.subarray(MUX_HEADER, len);
      this.buf = this.buf.subarray(len);
      if (type !== MUX_MESSAGE_PLIST) throw new IosProtocolError(`usbmuxd message type ${type} is not plist (8)`);
      out.push({ tag, body: asDict(decodePlist(payload)) });
    }
    return out;
  }

  /** Bytes after the last whole message (the start of a tunnel after Connect). */
  rest() {
    const r = this.buf;
    this.buf = Buffer.alloc(0);
    return r;
  }
}

/** Splits a lockdown byte stream into plist dictionaries. */
export class LockdownDecoder {
  private buf: Buffer = Buffer.alloc(0);

  push(chunk: Buffer) {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    const out: Dict[] = [];
    while (this.buf.length >= 4) {
      const len = this.buf.readUInt32BE(0);
      if (len > MAX_FRAME) throw new IosProtocolError(`lockdown frame length ${len} out of range`);
      if (this.buf.length < 4 + len) break;
      const payload = this.buf.subarray(4, 4 + len);
      this.buf = this.buf.subarray(4 + len);
      out.push(asDict(decodePlist(payload)));
    }
    return out;
  }
}

/** usbmuxd's Connect wants the port in network byte order inside its little-endian field. */
export function portToNetworkOrder(port: number) {
  return ((port & 0xff) << 8) | ((port >> 8) & 0xff);
}
