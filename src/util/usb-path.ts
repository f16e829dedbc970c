// Linux's names of USB devices in sysfs and in adb's long listing (bus-port.port...: "1-1.4.2"). Pure.

/** The USB bus of a Linux usb path ("1-1.4.2" → 1); undefined for other forms. */
export function usbBus(path: string | undefined) {
  const match = path === undefined ? null : /^(\d+)-\d+(?:\.\d+)*$/.exec(path);
  return match ? Number(match[1]) : undefined;
}

/** The hub a port hangs off, as the kernel names them: "1-1.4" for "1-1.4.2", root hub "usb1" for "1-4". */
export function hubOfPort(port: string) {
  const dot = port.lastIndexOf('.');
  if (dot > 0) return port.slice(0, dot);
  return `usb${port.slice(0, port.indexOf('-'))}`;
}
