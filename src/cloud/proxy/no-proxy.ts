// NO_PROXY as curl reads it (lib/noproxy.c): host names matching the host and every host under it, one leading and
// trailing dot and case ignored; IP literals compared as addresses, with an optional /bits; IPv6 without brackets; "*"
// for every host; names never resolved. Forms curl ignores are read as other tools (Go, Python, Node) read them:
// "*.example.com" as ".example.com", "host:8443" for that port only, "*" anywhere, blanks as separators. Pure.

import { BlockList, isIP } from 'node:net';

type NoProxyEntry =
  | { kind: 'all' }
  | { kind: 'host'; name: string; port?: number }
  | { kind: 'address'; family: 4 | 6; address: string; bits: number; subnet: BlockList; port?: number };

export interface NoProxyList {
  /** The entries understood, in order. */
  entries: NoProxyEntry[];
  /** Entries that can never match (kept to show them in doctor). */
  ignored: string[];
}

export function parseNoProxy(text: string | undefined) {
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
  const address = entry.family === 4 ? entry.address : ipv6Text(entry.address);
  const bits = entry.bits === sizeOf(entry.family) ? '' : `/${entry.bits}`;
  return entry.family === 6 && port ? `[${address}${bits}]${port}` : `${address}${bits}${port}`;
}

type Target = { kind: 'host'; name: string } | { kind: 'address'; family: 4 | 6; address: string };

function targetOf(host: string): Target | undefined {
  let name = host.toLowerCase();
  if (name.startsWith('[') && name.endsWith(']')) name = name.slice(1, -1);
  const family = isIP(name);
  if (family === 4 || family === 6) return { kind: 'address', family, address: name };
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
  return entry.subnet.check(target.address, `ipv${target.family}`);
}

function parseEntry(token: string): NoProxyEntry | undefined {
  if (token === '*') return { kind: 'all' };
  const lower = token.toLowerCase();
  // [v6]:port or [v6]; else a single colon is a port, more are an IPv6 address.
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(lower);
  const [, host = lower, portText] = bracketed ?? /^([^:]*):([^:]*)$/.exec(lower) ?? [];
  const port = portText === undefined ? undefined : portOf(portText);
  if (portText !== undefined && port === undefined) return undefined;
  const address = addressEntry(host, port);
  if (bracketed || address !== undefined) return address ?? undefined;

  // "*.example.com" and ".example.com" as "example.com", one trailing dot off.
  const name = host.replace(/^\*?\./, '').replace(/\.$/, '');
  if (name === '' || !/^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(name)) return undefined;
  return { kind: 'host', name, ...(port && { port }) };
}

/** An address entry; null when it looks like an address but is not a valid one; undefined when it is a name. */
function addressEntry(text: string, port: number | undefined): NoProxyEntry | null | undefined {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = isIP(address);
  if (family !== 4 && family !== 6) {
    return slash < 0 && !text.includes(':') ? undefined : null;
  }
  const size = sizeOf(family);
  let bits = size;
  if (slash >= 0) {
    const raw = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(raw) || Number(raw) > size) return null;
    bits = Number(raw);
  }
  const subnet = new BlockList();
  subnet.addSubnet(address, bits, `ipv${family}`);
  return { kind: 'address', family, address, bits, subnet, ...(port && { port }) };
}

function portOf(text: string) {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

function sizeOf(family: 4 | 6) {
  return family === 4 ? 32 : 128;
}

/** The eight groups in full, as doctor writes them: new URL() turns a dotted IPv4 tail into groups and drops leading zeros. */
function ipv6Text(address: string) {
  const [head = '', tail] = new URL(`http://[${address.replace(/%.*/, '')}]`).hostname.slice(1, -1).split('::');
  if (tail === undefined) return head;
  const groups = (text: string) => (text ? text.split(':') : []);
  return [...groups(head), ...new Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)].join(':');
}
