// Where usbmuxd listens, read the way libusbmuxd reads USBMUXD_SOCKET_ADDRESS: `UNIX:/path` for a unix socket,
// `HOST:PORT` for TCP (a bare path is not accepted by libusbmuxd, so it is refused here too rather than guessed).
const DEFAULT_USBMUXD_PATH = '/var/run/usbmuxd';

export type UsbmuxdAddress = { path: string; label: string } | { host: string; port: number; label: string };

export class UsbmuxdAddressError extends Error {
  override name = 'UsbmuxdAddressError';
}

export function parseUsbmuxdAddress(value: string | undefined): UsbmuxdAddress {
  const text = value?.trim();
  if (!text) return { path: DEFAULT_USBMUXD_PATH, label: `UNIX:${DEFAULT_USBMUXD_PATH}` };
  if (/^unix:/i.test(text)) {
    const path = text.slice(5);
    if (!path) throw new UsbmuxdAddressError('USBMUXD_SOCKET_ADDRESS "UNIX:" names no socket path');
    return { path, label: `UNIX:${path}` };
  }
  const colon = text.lastIndexOf(':');
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  const port = Number(text.slice(colon + 1));
  if (colon <= 0 || !host || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new UsbmuxdAddressError(`USBMUXD_SOCKET_ADDRESS ${JSON.stringify(text)} is neither UNIX:/path nor HOST:PORT (libusbmuxd accepts only these)`);
  }
  return { host, port, label: `${host}:${port}` };
}
