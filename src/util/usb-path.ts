// Linux's names of USB devices in sysfs and in adb's long listing (bus-port.port...: "1-1.4.2"). Pure.

/** The USB bus of a Linux usb path ("1-1.4.2" → 1); undefined for other forms. */
export function usbBus(path: string | undefined): number | undefined {
  const match = path === undefined ? null : /^(\d+)-\d+(?:\.\d+)*$/.exec(path);
  return match ? Number(match[1]) : undefined;
}
