import * as plist from 'plist';
import { describe, expect, it } from 'vitest';
import { parseUsbmuxdAddress, UsbmuxdAddressError } from '../../../src/config/usbmuxd-address.js';
import { IosProtocolError } from '../../../src/platforms/ios/errors.js';
import { encodeLockdown, encodeMux, lockdownDecoder, muxDecoder, portToNetworkOrder } from '../../../src/platforms/ios/framing.js';

describe('usbmuxd framing', () => {
  it('round-trips messages split at every byte', () => {
    const bytes = Buffer.concat([encodeMux({ MessageType: 'Result', Number: 0 }, 7), encodeMux({ MessageType: 'Attached', DeviceID: 3 }, 0)]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const d = muxDecoder();
      const got = [...d.push(bytes.subarray(0, cut)), ...d.push(bytes.subarray(cut))];
      expect(got).toEqual([
        { tag: 7, body: { MessageType: 'Result', Number: 0 } },
        { tag: 0, body: { MessageType: 'Attached', DeviceID: 3 } },
      ]);
    }
  });
  it('keeps what follows a message for the tunnel', () => {
    const d = muxDecoder();
    d.push(Buffer.concat([encodeMux({ Number: 0 }, 1), Buffer.from('tail')]));
    expect(d.rest().toString()).toBe('tail');
  });
  it('refuses a broken length instead of buffering forever', () => {
    const head = Buffer.alloc(16);
    head.writeUInt32LE(0xffffffff, 0);
    expect(() => muxDecoder().push(head)).toThrow(IosProtocolError);
  });
  it('puts PortNumber in network byte order (62078 -> 0x7ef2)', () => {
    expect(portToNetworkOrder(62078)).toBe(0x7ef2);
    expect(portToNetworkOrder(portToNetworkOrder(1234))).toBe(1234);
  });
});

describe('lockdown framing', () => {
  it('reads XML and binary plists', () => {
    const bin = Buffer.from(plist.buildBinary({ Request: 'GetValue', Value: 5 }));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(bin.length);
    const d = lockdownDecoder();
    expect(d.push(Buffer.concat([encodeLockdown({ Request: 'QueryType' }), head, bin]))).toEqual([{ Request: 'QueryType' }, { Request: 'GetValue', Value: 5 }]);
  });
  it('refuses a non-dictionary and garbage', () => {
    const junk = Buffer.from('not a plist');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(junk.length);
    expect(() => lockdownDecoder().push(Buffer.concat([head, junk]))).toThrow(IosProtocolError);
  });
});

describe('parseUsbmuxdAddress', () => {
  it('reads it as libusbmuxd does', () => {
    expect(parseUsbmuxdAddress(undefined)).toEqual({ path: '/var/run/usbmuxd', label: 'UNIX:/var/run/usbmuxd' });
    expect(parseUsbmuxdAddress('UNIX:/tmp/mux')).toMatchObject({ path: '/tmp/mux' });
    expect(parseUsbmuxdAddress('127.0.0.1:27015')).toMatchObject({ host: '127.0.0.1', port: 27015 });
    expect(parseUsbmuxdAddress('[::1]:27015')).toMatchObject({ host: '::1', port: 27015 });
  });
  it('refuses a bare path and a bad port, naming the accepted forms', () => {
    expect(() => parseUsbmuxdAddress('/var/run/usbmuxd')).toThrow(UsbmuxdAddressError);
    expect(() => parseUsbmuxdAddress('host:99999')).toThrow(/UNIX:\/path nor HOST:PORT/);
  });
});
