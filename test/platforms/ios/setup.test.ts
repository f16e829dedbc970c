import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { iosSource, type IosSettings } from '../../../src/platforms/ios/setup.js';
import { VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';

// USBMUXD_SOCKET_ADDRESS wins over the setting, as for libimobiledevice, and
// comes from the environment unchecked by the settings schema: a value
// libusbmuxd would not take turns iPhones off with one line naming it.

const settings: IosSettings = {
  ios: true,
  usbmuxdSocketAddress: undefined,
  iosTimeoutSeconds: 10,
  reconcileSeconds: 60,
  probeConcurrency: 4,
  slowFactsRefreshSeconds: 3600,
};

describe('iosSource: where usbmuxd listens', () => {
  it('a USBMUXD_SOCKET_ADDRESS libusbmuxd would not take: no iPhone source, one warning naming the value, its forms and the consequence', () => {
    const { logger, lines } = captureLogger();
    const source = iosSource(settings, { USBMUXD_SOCKET_ADDRESS: '/var/run/usbmuxd' }, logger, new DeviceRegistry(), new VirtualTime().clock());
    expect(source).toBeUndefined();
    expect(lines().map((l) => [l.level, l.msg])).toEqual([
      [
        'warn',
        'USBMUXD_SOCKET_ADDRESS "/var/run/usbmuxd" is neither UNIX:/path nor HOST:PORT (libusbmuxd accepts only these); iPhones are not reported until it is fixed',
      ],
    ]);
  });

  it("the start line's word for it: a socket path with nothing there is said to be absent, as doctor says it, not named as used (issue 61)", () => {
    const { logger } = captureLogger();
    const at = (address: string) => iosSource(settings, { USBMUXD_SOCKET_ADDRESS: address }, logger, new DeviceRegistry(), new VirtualTime().clock())!;
    expect(at('UNIX:/nonexistent/usbmuxd').whereNow()).toBe('UNIX:/nonexistent/usbmuxd: no usbmuxd socket there; iPhones are looked for once one appears');
    // Something there (here a directory stands for the socket): the address alone.
    expect(at('UNIX:/tmp').whereNow()).toBe('UNIX:/tmp');
    expect(at('127.0.0.1:27015').whereNow()).toBe('127.0.0.1:27015');
  });

  it('a valid one: the source, and nothing said', () => {
    const { logger, lines } = captureLogger();
    const source = iosSource(settings, { USBMUXD_SOCKET_ADDRESS: 'UNIX:/run/usbmuxd' }, logger, new DeviceRegistry(), new VirtualTime().clock());
    expect(source?.label).toContain('UNIX:/run/usbmuxd');
    expect(lines()).toEqual([]);
  });
});
