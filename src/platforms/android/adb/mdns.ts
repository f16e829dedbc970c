// The adb server's answer to `host:mdns:services` (what `adb mdns services`
// prints after its header line), pure. The catalogue, from adb's source:
// - adb 30 and later, both of its mdns stacks print one line per service,
//   `INSTANCE\tSERVICE\tIPV4:PORT\n`: Bonjour's (client/mdnsresponder_client.cpp,
//   `mdns_list_discovered_services`: the service's reg type as the browse
//   gave it, with DNS-SD's trailing dot, `_adb-tls-connect._tcp.`) and
//   Openscreen's (client/transport_mdns.cpp: `_adb-tls-connect._tcp`, and,
//   from Android 16's adb, an empty address for a service resolved on IPv6
//   only: `INSTANCE\tSERVICE\t:PORT`). The services: `_adb._tcp`,
//   `_adb-tls-pairing._tcp`, `_adb-tls-connect._tcp` (adb_mdns.h).
// - mdns discovery off (ADB_MDNS=0) or nothing found: an empty answer.
// - adb 29 and before (Debian bookworm's 29.0.6) have no such host service:
//   FAIL "unknown host service" (the caller's error, not this parser's).
// The `adb mdns services` command adds its own header line, "List of
// discovered mdns services", which is skipped if handed in.
//
// The instance name is the phone's own word (`adb-SERIAL-GUID`, from its
// persist.adb.wifi.guid): data, never matched for who the phone is. Lines
// that do not read so are counted, never guessed at; at most MAX_LINES are
// read (a flood of announcements on the lab network costs a bounded parse).

type MdnsServiceType = 'adb' | 'adb-tls-pairing' | 'adb-tls-connect';

export interface MdnsService {
  /** The instance name as announced: untrusted data. */
  instance: string;
  type: MdnsServiceType;
  /** IPv4 address and port, `HOST:PORT` as adb connects it. */
  address: string;
}

/** Lines read of one answer: a lab's adb phones are tens; thousands are a flood. */
export const MAX_LINES = 1000;

const HEADER = 'List of discovered mdns services';
const TYPE = /^_(adb|adb-tls-pairing|adb-tls-connect)\._tcp\.?$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
// Printable, no tab: a name with control characters is not adb's to print.
const INSTANCE = /^[^\t\u0000-\u001f\u007f]{1,255}$/;

/**
 * The services, the lines that do not read as a service line (`unread`, including a service resolved on IPv6 only,
 * with no address to connect), and the lines past MAX_LINES, left unread (`over`).
 */
export function parseMdnsServices(text: string) {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const services: MdnsService[] = [];
  let unread = 0;
  let read = 0;
  for (const raw of lines) {
    if (read >= MAX_LINES) break;
    read++;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === HEADER || line === '') continue;
    const service = serviceOf(line);
    if (service) services.push(service);
    else unread++;
  }
  return { services, unread, over: lines.length - read };
}

function serviceOf(line: string) {
  const fields = line.split('\t');
  if (fields.length !== 3) return undefined;
  const [instance, type, where] = fields as [string, string, string];
  const kind = TYPE.exec(type);
  if (!kind || !INSTANCE.test(instance)) return undefined;
  const colon = where.lastIndexOf(':');
  const host = where.slice(0, colon);
  const port = where.slice(colon + 1);
  if (colon < 0 || !IPV4.test(host) || !/^\d{1,5}$/.test(port)) return undefined;
  const n = Number(port);
  if (n < 1 || n > 65535) return undefined;
  return { instance, type: kind[1] as MdnsServiceType, address: `${host}:${n}` };
}
