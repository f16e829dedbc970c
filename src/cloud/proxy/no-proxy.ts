// NO_PROXY as curl reads it (lib/noproxy.c): host names matching the host and every host under it, one leading and
// trailing dot and case ignored; IP literals compared as addresses, with an optional /bits; IPv6 without brackets; "*"
// for every host; names never resolved. Forms curl ignores are read as other tools (Go, Python, Node) read them:
// "*.example.com" as ".example.com", "host:8443" for that port only, "*" anywhere, blanks as separators. Pure.

import { isIP } from 'node:net';

type NoProxyEntry =
  { kind: 'all' } | { kind: 'host'; name: string; port?: number } | { kind: 'address'; family: 4 | 6; bytes: Uint8Array; bits: number; port?: number };

export interface NoProxyList {
  /** The entries understood, in order. */
  entries: NoProxyEntry[];
  /** Entries that can never match (kept to show them in doctor). */
  ignored: string[];
}

export function parseNoProxy(text: string | undefined): NoProxyList {
  const entries: NoProxyEntry[] = [];
  const ignored: string[] = [];
  for (const token of (text ?? '').split(/[\s,]+/)) {
    if (token === '') continue;
    const entry = parseEntry(token);
    if (entry) entries.push(entry);
    else ignored.push(token);
  }
  return { entries, ignored };
}

/** The entry of the list that sends a request to host:port direct, or undefined when the proxy is used. */
export function noProxyMatch(list: NoProxyList, host: string, port: number) {
  const target = targetOf(host);
  if (target === undefined) return undefined;
  return list.entries.find((entry) => matches(entry, target, port));
}

/** An entry as it would be written back, for messages. */
export function formatEntry(entry: NoProxyEntry) {
  if (entry.kind === 'all') return '*';
  const port = entry.port === undefined ? '' : `:${entry.port}`;
  if (entry.kind === 'host') return entry.name + port;
  const address = entry.family === 4 ? [...entry.bytes].join('.') : ipv6Text(entry.bytes);
  const bits = entry.bits === entry.bytes.length * 8 ? '' : `/${entry.bits}`;
  return entry.family === 6 && port ? `[${address}${bits}]${port}` : `${address}${bits}${port}`;
}

type Target = { kind: 'host'; name: string } | { kind: 'address'; family: 4 | 6; bytes: Uint8Array };

function targetOf(host: string): Target | undefined {
  let name = host.toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  const family = isIP(name);
  if (family === 4 || family === 6) return { kind: 'address', family, bytes: addressBytes(name, family)! };
  if (name.endsWith('.')) name = name.slice(0, -1);
  return name ? { kind: 'host', name } : undefined;
}

function matches(entry: NoProxyEntry, target: Target, port: number) {
  if (entry.kind === 'all') return true;
  if (entry.port !== undefined && entry.port !== port) return false;
  if (entry.kind === 'host') {
    if (target.kind !== 'host') return false;
    return target.name === entry.name || target.name.endsWith(`.${entry.name}`);
  }
  if (target.kind !== 'address' || target.family !== entry.family) return false;
  return samePrefix(target.bytes, entry.bytes, entry.bits);
}

function parseEntry(token: string): NoProxyEntry | undefined {
  if (token === '*') return { kind: 'all' };
  let text = token.toLowerCase();
  let port: number | undefined;

  // [v6]:port or [v6]
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    text = bracketed[1]!;
    if (bracketed[2] !== undefined) port = portOf(bracketed[2]);
    if (bracketed[2] !== undefined && port === undefined) return undefined;
    return addressEntry(text, port) ?? undefined;
  }
  // A single colon is a port; more are an IPv6 address.
  const colons = text.split(':').length - 1;
  if (colons === 1) {
    const at = text.lastIndexOf(':');
    port = portOf(text.slice(at + 1));
    if (port === undefined) return undefined;
    text = text.slice(0, at);
  }
  const address = addressEntry(text, port);
  if (address !== undefined) return address ?? undefined;

  if (text.startsWith('*.')) text = text.slice(1);
  if (text.startsWith('.')) text = text.slice(1);
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (text === '' || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(text)) return undefined;
  return port === undefined ? { kind: 'host', name: text } : { kind: 'host', name: text, port };
}

/** An address entry; null when it looks like an address but is not a valid one; undefined when it is a name. */
function addressEntry(text: string, port: number | undefined): NoProxyEntry | null | undefined {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family !== 4 && family !== 6) {
    return slash < 0 && !text.includes(':') ? undefined : null;
  }
  const size = family === 4 ? 32 : 128;
  let bits = size;
  if (slash >= 0) {
    const raw = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(raw) || Number(raw) > size) return null;
    bits = Number(raw);
  }
  const entry: NoProxyEntry = { kind: 'address', family, bytes: addressBytes(address, family)!, bits };
  if (port !== undefined) entry.port = port;
  return entry;
}

function portOf(text: string) {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number) {
  const whole = Math.floor(bits / 8);
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = bits % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((a[whole]! ^ b[whole]!) & mask) === 0;
}

function addressBytes(address: string, family: 4 | 6): Uint8Array | undefined {
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  // Expand "::" and a trailing dotted IPv4 part into eight 16-bit groups.
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const b = v4[1]!.split('.').map(Number);
    text = text.slice(0, -v4[1]!.length) + `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - headGroups.length - tailGroups.length).fill('0');
  const groups = [...headGroups, ...fill, ...tailGroups];
  if (groups.length !== 8) return undefined;
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    const value = parseInt(g, 16);
    bytes[i * 2] = value >> 8;
    bytes[i * 2 + 1] = value & 0xff;
  });
  return bytes;
}

function ipv6Text(bytes: Uint8Array) {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return groups.join(':');
}
