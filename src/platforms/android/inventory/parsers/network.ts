// Network facts: the device's IPv4 address from `ip -o -4 addr` (or the multi-line `ip addr` form), the global HTTP
// proxy setting, and the result of one `ping -c 1` to the configured host.

import { isUnsetSetting, parseSettingValue } from './settings.js';

interface Address {
  iface: string;
  address: string;
}

const ONE_LINE = /^\d+:\s+([^\s:]+)\s+inet\s+(\d{1,3}(?:\.\d{1,3}){3})\//;
const HEADER = /^\d+:\s+([^\s:@]+)(?:@\S+)?:\s+</;
const INET = /^\s+inet\s+(\d{1,3}(?:\.\d{1,3}){3})\//;

export function parseIpAddresses(text: string) {
  const addresses: Address[] = [];
  let iface: string | undefined;
  for (const line of text.replace(/\r/g, '').split('\n')) {
    const one = ONE_LINE.exec(line);
    if (one) {
      addresses.push({ iface: one[1] ?? '', address: one[2] ?? '' });
      continue;
    }
    const header = HEADER.exec(line);
    if (header) {
      iface = header[1];
      continue;
    }
    const inet = INET.exec(line);
    if (inet && iface !== undefined) addresses.push({ iface, address: inet[1] ?? '' });
  }
  return addresses;
}

// Wi-Fi first (what a lab reaches the phone by), then Ethernet, then anything else but loopback.
const PREFERENCE = [/^wlan/, /^eth/, /^(rmnet|ccmni|seth|rev_rmnet|v4-rmnet)/];

export function preferredAddress(addresses: Address[]) {
  const usable = addresses.filter((a) => a.iface !== 'lo' && !a.address.startsWith('127.'));
  for (const pattern of PREFERENCE) {
    const hit = usable.find((a) => pattern.test(a.iface));
    if (hit) return hit.address;
  }
  return usable[0]?.address;
}

/** `settings get global http_proxy`: "host:port" when set; "null", empty or ":0" (what Settings leaves after clearing a proxy) when not. */
export function parseProxy(value: string | undefined) {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === 'null' || trimmed === ':0') return false;
  return /^[^\s:]+:\d+$/.test(trimmed) ? true : undefined;
}

/** `settings get global http_proxy` raw: false for "null", undefined when the command failed, else parseProxy's word. */
export function parseProxySetting(text: string) {
  return isUnsetSetting(text) ? false : parseProxy(parseSettingValue(text));
}

export interface PingResult {
  /** 0: a reply came back; 1: no reply; 2: the ping could not run (unknown host, no network). */
  code: number;
  status: 'REACHABLE' | 'UNREACHABLE' | 'UNKNOWN_HOST' | 'ERROR';
}

export function parsePing(text: string): PingResult | undefined {
  const clean = text.replace(/\r/g, '');
  const stats = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(clean);
  if (stats) {
    return Number(stats[2]) > 0 ? { code: 0, status: 'REACHABLE' } : { code: 1, status: 'UNREACHABLE' };
  }
  if (/unknown host|Name or service not known|bad address/i.test(clean)) return { code: 2, status: 'UNKNOWN_HOST' };
  if (/Network is unreachable|connect: |Permission denied|Operation not permitted/i.test(clean)) {
    return { code: 2, status: 'ERROR' };
  }
}
