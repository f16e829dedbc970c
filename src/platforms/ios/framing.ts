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

/** A plist value that is a dictionary; undefined for any other. */
export const dictOf = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) ? (v as Dict) : undefined);

function asDict(value: unknown) {
  const dict = dictOf(value);
  if (!dict) throw new IosProtocolError('plist is not a dictionary');
  return dict;
}

export function encodeMux(body: Dict, tag: number) {
  const payload = Buffer.from(plist.build(body as never), 'utf8');
  const head = Buffer.alloc(MUX_HEADER);
  head.writeUInt32LE(MUX_HEADER + payload.length, 0);
  head.writeUInt32LE(MUX_VERSION_PLIST, 4);
  head.writeUInt32LE(MUX_MESSAGE_PLIST, 8);
  head.writeUInt32LE(tag, 12);
  return Buffer.concat([head, payload]);
}

export function encodeLockdown(body: Dict) {
  const payload = Buffer.from(plist.build(body as never), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length);
  return Buffer.concat([head, payload]);
}

/**
 * Splits a byte stream into messages: `size` reads a whole frame's length from its `header` bytes (throwing when out of
 * range), `read` a frame's message; `rest` gives the bytes after the last whole message (the start of a tunnel after
 * Connect).
 */
function decoder<T>(header: number, size: (buf: Buffer) => number, read: (frame: Buffer) => T) {
  let buf: Buffer = Buffer.alloc(0);
  return {
    push(chunk: Buffer) {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      const out: T[] = [];
      while (buf.length >= header) {
        const len = size(buf);
        if (buf.length < len) break;
        const frame = buf.subarray(0, len);
        buf = buf.subarray(len);
        out.push(read(frame));
      }
      return out;
    },
    rest() {
      const r = buf;
      buf = Buffer.alloc(0);
      return r;
    },
  };
}

/** Splits a usbmuxd byte stream into {tag, body} messages. */
export const muxDecoder = () =>
  decoder(
    MUX_HEADER,
    (buf) => {
      const len = buf.readUInt32LE(0);
      if (len < MUX_HEADER || len > MAX_FRAME) throw new IosProtocolError(`usbmuxd frame length ${len} out of range`);
      return len;
    },
    (frame) => {
      const type = frame.readUInt32LE(8);
      if (type !== MUX_MESSAGE_PLIST) throw new IosProtocolError(`usbmuxd message type ${type} is not plist (8)`);
      return { tag: frame.readUInt32LE(12), body: asDict(decodePlist(frame.subarray(MUX_HEADER))) };
    },
  );

/** Splits a lockdown byte stream into plist dictionaries. */
export const lockdownDecoder = () =>
  decoder(
    4,
    (buf) => {
      const len = buf.readUInt32BE(0);
      if (len > MAX_FRAME) throw new IosProtocolError(`lockdown frame length ${len} out of range`);
      return 4 + len;
    },
    (frame) => asDict(decodePlist(frame.subarray(4))),
  );

/** usbmuxd's Connect wants the port in network byte order inside its little-endian field. */
export function portToNetworkOrder(port: number) {
  return ((port & 0xff) << 8) | ((port >> 8) & 0xff);
}
