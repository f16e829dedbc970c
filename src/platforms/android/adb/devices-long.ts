// Parses adb's long device listing (`adb devices -l`): "%-22s %s" (serial, state), optional " usb:PATH", " product:X",
// " model:X", " device:X", and always " transport_id:N" (transport.cpp, append_transport). The state may hold spaces,
// so fields are taken from the right: adbkit's listDevicesWithPaths splits by column and shifts them.

export interface LongDevice {
  serial: string;
  state: string;
  /** "1-1.4.2" on Linux (bus-port.port...), "1114112X" on macOS (location id); absent over TCP. */
  usb?: string;
  product?: string;
  model?: string;
  device?: string;
  transportId?: string;
}

const FIELD = /^(usb|product|model|device|transport_id):(\S*)$/;

export function parseDevicesLong(text: string) {
  const out: LongDevice[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('List of devices') || line.startsWith('* ') || line.startsWith('#')) continue;
    const tokens = line.split(/\s+/);
    const serial = tokens.shift()!;
    const entry: LongDevice = { serial, state: '' };
    // Fields from the end; the first token that is not one ends them.
    let end = tokens.length;
    while (end > 1) {
      const match = FIELD.exec(tokens[end - 1]!);
      if (!match) break;
      const [, key, value] = match;
      if (key === 'usb') entry.usb = value;
      else if (key === 'transport_id') entry.transportId = value;
      else entry[key as 'product' | 'model' | 'device'] = value;
      end--;
    }
    entry.state = tokens.slice(0, end).join(' ');
    if (!entry.state) continue;
    out.push(entry);
  }
  return out;
}
