import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  A_CNXN,
  A_OKAY,
  A_WRTE,
  HEADER_LENGTH,
  PacketDecoder,
  checksum,
  commandName,
  decodePacket,
  encodePacket,
  formatBanner,
  parseBanner,
  type Packet,
} from './packet.js';

describe('packet encoding', () => {
  it('lays out the header little-endian with magic and the byte-sum check', () => {
    const bytes = encodePacket({ command: A_WRTE, arg0: 7, arg1: 9, data: Buffer.from('hi') });
    expect(bytes.subarray(0, 4).toString('latin1')).toBe('WRTE');
    expect(bytes.readUInt32LE(4)).toBe(7);
    expect(bytes.readUInt32LE(8)).toBe(9);
    expect(bytes.readUInt32LE(12)).toBe(2);
    expect(bytes.readUInt32LE(16)).toBe(0x68 + 0x69);
    expect(bytes.readUInt32LE(20)).toBe((A_WRTE ^ 0xffffffff) >>> 0);
    expect(bytes.subarray(HEADER_LENGTH).toString()).toBe('hi');
  });

  it('names commands and shows unknown ones in hex', () => {
    expect(commandName(A_CNXN)).toBe('CNXN');
    expect(commandName(A_OKAY)).toBe('OKAY');
    expect(commandName(0x1234)).toBe('0x1234');
  });

  it('round-trips any packet', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.integer({ min: 0, max: 0xffffffff }),
        fc.uint8Array({ maxLength: 300 }),
        (command, arg0, arg1, data) => {
          const result = decodePacket(encodePacket({ command, arg0, arg1, data: Buffer.from(data) }), {
            verifyChecksum: true,
          });
          expect(result.kind).toBe('packet');
          if (result.kind !== 'packet') return;
          expect(result.packet).toEqual({ command, arg0, arg1, data: Buffer.from(data) });
          expect(result.rest.length).toBe(0);
        },
      ),
    );
  });
});

describe('packet decoding', () => {
  it('waits for a whole header and a whole payload', () => {
    const bytes = encodePacket({ command: A_WRTE, arg0: 1, arg1: 2, data: Buffer.from('abcdef') });
    expect(decodePacket(bytes.subarray(0, 10)).kind).toBe('incomplete');
    expect(decodePacket(bytes.subarray(0, HEADER_LENGTH + 3)).kind).toBe('incomplete');
  });

  it('rejects a bad magic, an oversized length and (when asked) a bad checksum', () => {
    const good = encodePacket({ command: A_WRTE, arg0: 1, arg1: 2, data: Buffer.from('abc') });
    const badMagic = Buffer.from(good);
    badMagic.writeUInt32LE(0, 20);
    expect(decodePacket(badMagic).kind).toBe('invalid');
    expect(decodePacket(good, { maxData: 2 }).kind).toBe('invalid');
    const badCheck = Buffer.from(good);
    badCheck.writeUInt32LE(0, 16);
    expect(decodePacket(badCheck).kind).toBe('packet');
    expect(decodePacket(badCheck, { verifyChecksum: true }).kind).toBe('invalid');
  });

  it('reassembles packets from arbitrary chunk boundaries', () => {
    const packetArb = fc.record({
      command: fc.constantFrom(A_CNXN, A_OKAY, A_WRTE),
      arg0: fc.nat(),
      arg1: fc.nat(),
      data: fc.uint8Array({ maxLength: 100 }).map((d) => Buffer.from(d)),
    });
    fc.assert(
      fc.property(fc.array(packetArb, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), (packets, cuts) => {
        const stream = Buffer.concat(packets.map((p: Packet) => encodePacket(p)));
        const points = [...new Set(cuts.map((c) => (stream.length === 0 ? 0 : c % stream.length)))].sort((a, b) => a - b);
        const decoder = new PacketDecoder();
        const got: Packet[] = [];
        let from = 0;
        for (const point of [...points, stream.length]) {
          got.push(...decoder.push(stream.subarray(from, point)));
          from = point;
        }
        expect(got).toEqual(packets);
        expect(decoder.error).toBeUndefined();
      }),
    );
  });

  it('stays failed after garbage instead of misreading later bytes', () => {
    const decoder = new PacketDecoder();
    expect(decoder.push(Buffer.from('this is not an adb packet at all'))).toEqual([]);
    expect(decoder.error).toMatch(/bad magic/);
    const good = encodePacket({ command: A_OKAY, arg0: 1, arg1: 2, data: Buffer.alloc(0) });
    expect(decoder.push(good)).toEqual([]);
  });
});

describe('banner', () => {
  it('parses a host banner as sent by adb 29', () => {
    const banner = parseBanner(Buffer.from('host::features=shell_v2,cmd,stat_v2\0'));
    expect(banner).toEqual({ systemType: 'host', serial: '', props: {}, features: ['shell_v2', 'cmd', 'stat_v2'] });
  });

  it('round-trips a device banner', () => {
    const banner = {
      systemType: 'device',
      serial: '',
      props: { 'ro.product.name': 'husky', 'ro.product.model': 'Pixel 8 Pro', 'ro.product.device': 'husky' },
      features: ['cmd'],
    };
    expect(formatBanner(banner)).toBe('device::ro.product.name=husky;ro.product.model=Pixel 8 Pro;ro.product.device=husky;features=cmd');
    expect(parseBanner(formatBanner(banner))).toEqual(banner);
  });

  it('never throws on garbage', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const banner = parseBanner(text);
        expect(typeof banner.systemType).toBe('string');
      }),
    );
  });
});

describe('checksum', () => {
  it('is the unsigned byte sum', () => {
    expect(checksum(Buffer.from([255, 255, 1]))).toBe(511);
  });
});
