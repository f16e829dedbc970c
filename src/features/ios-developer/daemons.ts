// The host's iOS 17 tunnel daemons as the agent reads them: their listing of
// tunnels, parsed from what each one's HTTP API answers. Pure. The agent
// only reads these APIs; it never starts, refreshes or deletes a tunnel.
//
// go-ios's agent (`ios tunnel start`, ios/tunnel/tunnel_api.go, port 60105
// or GO_IOS_AGENT_PORT, host 127.0.0.1 or GO_IOS_AGENT_HOST): `GET /tunnels`
// answers 200 with a JSON array of `Tunnel` (ios/tunnel/tunnel.go):
// `{"address": "<IPv6 of the phone over the tunnel>", "rsdPort": N, "udid":
// "...", "userspaceTun": bool, "userspaceTunPort": N}` (the last two from
// go-ios 1.0.129, the userspace TUN), one object per tunnel and the same udid
// more than once when the agent holds a stale tunnel beside a new one (as
// `ios tunnel ls` printed in go-ios#712); 500 with a line of text on an
// error; 405 to another method.
//
// pymobiledevice3's tunneld (pymobiledevice3/tunneld/server.py, port 49151,
// `TUNNELD_DEFAULT_ADDRESS`): `GET /` answers 200 with a JSON object, udid to
// a list of `{"tunnel-address": "...", "tunnel-port": N, "interface": "..."}`
// (the interface is the tunnel task's name: the phone's IP on a USB or Wi-Fi
// link, or `usbmux-<udid>-<connection type>`); a udid may come without its
// dashes from a Linux usbmuxd (pymobiledevice3#1388), so it is matched both
// ways.
//
// A phone's udid in a listing is what usbmuxd heard from the phone: data,
// matched only for equality with the udid usbmuxd lists, never parsed.

import type { DAEMON_KINDS } from './settings.js';

export type DaemonKind = (typeof DAEMON_KINDS)[number];

/** Where each kind keeps its listing, and what it answers there. */
export const LISTING_PATH: Readonly<Record<DaemonKind, string>> = { 'go-ios': '/tunnels', tunneld: '/' };

/** What people call each daemon, and how it is started, for the lines that name it. */
export const DAEMON_NAME: Readonly<Record<DaemonKind, { name: string; start: string }>> = {
  'go-ios': { name: "go-ios's tunnel agent", start: '`ios tunnel start` (go-ios), as root, or `ios tunnel start --userspace`' },
  tunneld: { name: "pymobiledevice3's tunneld", start: '`pymobiledevice3 remote tunneld` (as root)' },
};

export interface TunnelRecord {
  /** The udid as the daemon lists it. */
  udid: string;
  /** The phone's address over the tunnel, and its RemoteServiceDiscovery port: together, the tunnel's name. */
  address: string;
  port: number;
  /** go-ios's userspace TUN (`--userspace`), when it says. */
  userspace?: boolean;
}

export type ListingRead = { ok: true; tunnels: TunnelRecord[]; unread: number } | { ok: false; why: string };

/** Tunnels a listing may hold: far more than a host's phones. */
export const MAX_TUNNELS = 500;

const UDID = /^[0-9A-Za-z-]{8,64}$/;
const ADDRESS = /^[0-9A-Za-z:.%-]{2,64}$/;

const isPort = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 65535;

/** One daemon's listing body (the 200 answer's text). */
export function parseListing(kind: DaemonKind, body: string): ListingRead {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, why: 'its listing is not JSON' };
  }
  return kind === 'go-ios' ? goIos(json) : tunneld(json);
}

function goIos(json: unknown): ListingRead {
  // Go encodes a nil slice as null.
  if (json === null) return { ok: true, tunnels: [], unread: 0 };
  if (!Array.isArray(json)) return { ok: false, why: 'its listing is not a JSON array of tunnels' };
  const tunnels: TunnelRecord[] = [];
  let unread = 0;
  for (const item of json.slice(0, MAX_TUNNELS)) {
    const t = item as Record<string, unknown> | null;
    if (
      t &&
      typeof t === 'object' &&
      typeof t.udid === 'string' &&
      UDID.test(t.udid) &&
      typeof t.address === 'string' &&
      ADDRESS.test(t.address) &&
      isPort(t.rsdPort)
    )
      tunnels.push({ udid: t.udid, address: t.address, port: t.rsdPort, ...(typeof t.userspaceTun === 'boolean' ? { userspace: t.userspaceTun } : {}) });
    else unread++;
  }
  return { ok: true, tunnels, unread: unread + Math.max(0, json.length - MAX_TUNNELS) };
}

function tunneld(json: unknown): ListingRead {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return { ok: false, why: 'its listing is not a JSON object of udids' };
  const tunnels: TunnelRecord[] = [];
  let unread = 0;
  for (const [udid, list] of Object.entries(json as Record<string, unknown>)) {
    if (!UDID.test(udid) || !Array.isArray(list)) {
      unread++;
      continue;
    }
    for (const item of list) {
      const t = item as Record<string, unknown> | null;
      if (tunnels.length >= MAX_TUNNELS) unread++;
      else if (t && typeof t === 'object' && typeof t['tunnel-address'] === 'string' && ADDRESS.test(t['tunnel-address']) && isPort(t['tunnel-port']))
        tunnels.push({ udid, address: t['tunnel-address'], port: t['tunnel-port'] });
      else unread++;
    }
  }
  return { ok: true, tunnels, unread };
}

/** Whether a listed udid is this phone's: equal, or equal once both lose their dashes (pymobiledevice3#1388). */
export function sameUdid(listed: string, udid: string) {
  return listed === udid || listed.replace(/-/g, '') === udid.replace(/-/g, '');
}
