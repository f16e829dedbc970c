import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDevicesLong } from '../../../../src/platforms/android/adb/devices-long.js';
import { usbBus } from '../../../../src/util/usb-path.js';

const fixture = (name: string): string => readFileSync(new URL(`fixtures/devices-l/${name}`, import.meta.url), 'utf8');

describe('parseDevicesLong on recorded listings', () => {
  it('reads a Linux usb path and every field', () => {
    expect(parseDevicesLong(fixture('linux-usb.txt'))).toEqual([
      { serial: '0123456789abcdef', state: 'device', usb: '2-1', product: 'MyProduct', model: 'MyModel', device: 'MyDevice', transportId: '1' },
    ]);
  });

  it('reads a macOS location id as the usb path', () => {
    const [d] = parseDevicesLong(fixture('macos-location-id.txt'));
    expect(d).toMatchObject({ serial: 'UYT5T18414003349', usb: '1114112X', model: 'ALP_AL00', transportId: '23' });
    expect(usbBus(d!.usb)).toBeUndefined();
  });

  it('keeps two phones with one serial apart by transport id', () => {
    expect(parseDevicesLong(fixture('same-serial.txt')).map((d) => d.transportId)).toEqual(['56', '57']);
  });

  it('keeps a state with spaces whole and still finds the fields after it', () => {
    const [d] = parseDevicesLong(fixture('no-permissions.txt'));
    expect(d!.state).toBe('no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html]');
    expect(d).toMatchObject({ usb: '1-1.4.2', transportId: '7' });
    expect(d!.product).toBeUndefined();
  });
});

describe('parseDevicesLong on the shapes adb prints', () => {
  it('a TCP device has no usb path; an unauthorized one has no product', () => {
    const text = [
      'List of devices attached',
      '127.0.0.1:40123        device product:sdk_phone model:Pixel_7 device:panther transport_id:3',
      'R58M12AB               unauthorized usb:3-2 transport_id:4',
      '192.168.1.5:5555       offline transport_id:5',
      '',
    ].join('\n');
    expect(parseDevicesLong(text)).toEqual([
      { serial: '127.0.0.1:40123', state: 'device', product: 'sdk_phone', model: 'Pixel_7', device: 'panther', transportId: '3' },
      { serial: 'R58M12AB', state: 'unauthorized', usb: '3-2', transportId: '4' },
      { serial: '192.168.1.5:5555', state: 'offline', transportId: '5' },
    ]);
  });

  it('a state named like a field value is still the state', () => {
    expect(parseDevicesLong('X1 device device:device transport_id:1')).toEqual([{ serial: 'X1', state: 'device', device: 'device', transportId: '1' }]);
  });

  it('skips blank lines, the header and a line without a state', () => {
    expect(parseDevicesLong('\n\nList of devices attached\nLONELY\n')).toEqual([]);
  });
});

describe('usbBus', () => {
  it('is the bus of a Linux path through hubs', () => {
    expect(usbBus('1-1.4.2')).toBe(1);
    expect(usbBus('12-3')).toBe(12);
    expect(usbBus(undefined)).toBeUndefined();
    expect(usbBus('1-')).toBeUndefined();
  });
});
