// ADB transport packets (AOSP adb protocol.txt): a 24-byte little-endian
// header (command, arg0, arg1, data_length, data_check, magic) then the
// payload. Pure: bytes in, packets out; garbage is reported, never thrown.

export const A_CNXN = 0x4e584e43;
export const A_OPEN = 0x4e45504f;
export const A_OKAY = 0x59414b4f;
export const A_CLSE = 0x45534c43;
export const A_WRTE = 0x45545257;
export const A_AUTH = 0x48545541;

/** Peers of this version and later may skip data_check (0x01000000 sends it). */
export const A_VERSION_SKIP_CHECKSUM = 0x01000001;

export const AUTH_TOKEN = 1;
export const AUTH_SIGNATURE = 2;
export const AUTH_RSAPUBLICKEY = 3;

export const HEADER_LENGTH = 24;

export interface Packet {
  command: number;
  arg0: number;
  arg1: number;
  data: Buffer;
}

/** Four-letter name of a command ("CNXN"), or its hex value when unknown. */
export function commandName(command: number): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(command >>> 0);
  const text = bytes.toString('latin1');
  return /^[A-Z]{4}$/.test(text) ? text : `0x${(command >>> 0).toString(16)}`;
}

/** The legacy data_check: the plain sum of the payload bytes, not a CRC. */
export function checksum(data: Uint8Array): number {
  let sum = 0;
  for (const byte of data) sum = (sum + byte) >>> 0;
  return sum;
}

export function encodePacket(packet: Packet): Buffer {
  const out = Buffer.alloc(HEADER_LENGTH + packet.data.length);
  out.writeUInt32LE(packet.command >>> 0, 0);
  out.writeUInt32LE(packet.arg0 >>> 0, 4);
  out.writeUInt32LE(packet.arg1 >>> 0, 8);
  out.writeUInt32LE(packet.data.length, 12);
  // Always filled in: old hosts check it, new ones ignore it.
  out.writeUInt32LE(checksum(packet.data), 16);
  out.writeUInt32LE((packet.command ^ 0xffffffff) >>> 0, 20);
  packet.data.copy(out, HEADER_LENGTH);
  return out;
}

export type DecodeResult = { kind: 'packet'; packet: Packet; rest: Buffer } | { kind: 'incomplete' } | { kind: 'invalid'; reason: string };

export interface DecodeOptions {
  /** Largest payload accepted; bigger announced lengths are invalid. */
  maxData?: number;
  /** Verify data_check (only meaningful below A_VERSION_SKIP_CHECKSUM). */
  verifyChecksum?: boolean;
}

const DEFAULT_MAX_DATA = 1024 * 1024;

/** Decode one packet from the start of `bytes`. */
export function decodePacket(bytes: Buffer, options: DecodeOptions = {}): DecodeResult {
  if (bytes.length < HEADER_LENGTH) return { kind: 'incomplete' };
  const command = bytes.readUInt32LE(0);
  const magic = bytes.readUInt32LE(20);
  if ((command ^ 0xffffffff) >>> 0 !== magic) {
    return { kind: 'invalid', reason: `bad magic for ${commandName(command)}` };
  }
  const length = bytes.readUInt32LE(12);
  const maxData = options.maxData ?? DEFAULT_MAX_DATA;
  if (length > maxData) {
    return { kind: 'invalid', reason: `payload of ${length} bytes exceeds ${maxData}` };
  }
  if (bytes.length < HEADER_LENGTH + length) return { kind: 'incomplete' };
  const data = Buffer.from(bytes.subarray(HEADER_LENGTH, HEADER_LENGTH + length));
  if (options.verifyChecksum && checksum(data) !== bytes.readUInt32LE(16)) {
    return { kind: 'invalid', reason: `bad checksum for ${commandName(command)}` };
  }
  return {
    kind: 'packet',
    packet: { command, arg0: bytes.readUInt32LE(4), arg1: bytes.readUInt32LE(8), data },
    rest: bytes.subarray(HEADER_LENGTH + length),
  };
}

/**
 * Reassembles packets from TCP chunks of any size. After an invalid header
 * the stream cannot be resynchronised, so the decoder stays failed.
 */
export class PacketDecoder {
  private buffered: Buffer = Buffer.alloc(0);
  private failure: string | undefined;

  constructor(private readonly options: DecodeOptions = {}) {}

  get error(): string | undefined {
    return this.failure;
  }

  push(chunk: Buffer): Packet[] {
    if (this.failure !== undefined) return [];
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const packets: Packet[] = [];
    for (;;) {
      const result = decodePacket(this.buffered, this.options);
      if (result.kind === 'incomplete') break;
      if (result.kind === 'invalid') {
        this.failure = result.reason;
        this.buffered = Buffer.alloc(0);
        break;
      }
      packets.push(result.packet);
      this.buffered = result.rest;
    }
    return packets;
  }
}

/** "device::ro.product.name=x;...;features=a,b" or "host::features=..." */
export interface Banner {
  systemType: string;
  serial: string;
  props: Record<string, string>;
  features: string[];
}

export function parseBanner(data: Buffer | string): Banner {
  const text = (typeof data === 'string' ? data : data.toString('utf8')).replace(/\0+$/, '');
  const first = text.indexOf(':');
  const second = first < 0 ? -1 : text.indexOf(':', first + 1);
  const systemType = first < 0 ? text : text.slice(0, first);
  const serial = first < 0 || second < 0 ? '' : text.slice(first + 1, second);
  const rest = second < 0 ? '' : text.slice(second + 1);
  const props: Record<string, string> = {};
  let features: string[] = [];
  for (const part of rest.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 'features') features = value.split(',').filter((f) => f.length > 0);
    else props[key] = value;
  }
  return { systemType, serial, props, features };
}

export function formatBanner(banner: Banner): string {
  const parts = Object.entries(banner.props).map(([key, value]) => `${key}=${value}`);
  parts.push(`features=${banner.features.join(',')}`);
  return `${banner.systemType}:${banner.serial}:${parts.join(';')}`;
}
