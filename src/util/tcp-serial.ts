/** adb names a device it reaches over TCP (adb connect, adb tcpip) HOST:PORT. */
export function isTcpSerial(serial: string) {
  return /:\d+$/.test(serial);
}

/** The host and port of a TCP serial; undefined for a USB serial. */
export function tcpAddress(serial: string) {
  const match = /^(.+):(\d{1,5})$/.exec(serial);
  return match ? { host: match[1]!, port: Number(match[2]) } : undefined;
}
