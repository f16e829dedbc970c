// Whether the host's tunnel daemons hold a live tunnel for a phone, a stale
// one, or none: pure, from what the daemons list over time and when each
// phone last (re)connected.
//
// Stale (go-ios#712, #765): after a phone reboots, a daemon may go on
// listing the tunnel it made before (the same address and RSD port, "the
// agent's cleanup only stops tunnels for devices that vanish from usbmux"),
// which every client then dials in vain. A tunnel a daemon makes is new each
// time: its address and port are the phone's answer to a new handshake
// (#712's listing: each tunnel of one udid its own fdXX:: address and
// port; go-ios's own e2e test of `tunnel refresh`,
// test/e2e/tunnel/perdevice_test.go, fails when the refreshed tunnel has the
// same address and RSD port as before). So a tunnel is named by (daemon, udid, address, port) and dated by
// the phone's connection it was first seen in: one first seen in an earlier
// connection of the phone was made before it came back, and is stale; one
// first seen while usbmuxd did not list the phone (a Wi-Fi tunnel, or one
// found at the agent's start) is dated by the first connection it is seen
// with, never called stale on no evidence; one listed with RSD port
// 0 is too (go-ios#670, "dial tcp [fd...]:0 after an overnight USB
// disconnect ... the stale-tunnel problem"). A phone with a tunnel first
// seen in its current connection is live. A reboot usbmuxd does not see as a
// detach (#765's "quick reboot") is not seen here either; nor, after the
// agent starts, a tunnel that was stale already: it is dated by the
// connection it is first seen in.
//
// The phone's connection is its record's `changedSeq` (`epoch` here): the
// registry's change counter when the record was made or its state changed,
// which for an iPhone (always "attached" while usbmuxd lists it) moves only
// when usbmuxd lists it anew.
import { sameUdid, type DaemonKind, type TunnelRecord } from './daemons.js';

export interface DaemonRef {
  /** As configured: `go-ios=http://127.0.0.1:60105`. */
  id: string;
  kind: DaemonKind;
  url: string;
}

/** One daemon as the last poll found it. */
export type DaemonNow = DaemonRef & ({ state: 'up'; tunnels: readonly TunnelRecord[] } | { state: 'down' | 'refusing' | 'garbage'; why: string });

export interface PhoneNow {
  udid: string;
  epoch: number;
}

export type TunnelVerdict =
  /** A tunnel made in the phone's current connection; `stale` more of it listed beside it. */
  | { state: 'live'; daemon: DaemonRef; tunnel: TunnelRecord; stale: number }
  | { state: 'stale'; daemon: DaemonRef; tunnel: TunnelRecord; why: 'before-reconnect' | 'no-port' }
  /** Every daemon that answers lists none for it. */
  | { state: 'none'; daemons: readonly DaemonRef[] }
  /** No daemon answers now, and one did before: its tunnels are unknown. */
  | { state: 'unknown'; daemons: ReadonlyArray<DaemonRef & { state: string; why: string }> }
  /** No daemon has answered since the agent started. */
  | { state: 'no-daemon'; daemons: readonly DaemonRef[] };

/** Tunnels remembered: a daemon's listing is bounded (daemons.ts MAX_TUNNELS), and so are the daemons. */
const MAX_REMEMBERED = 4000;

export class TunnelLedger {
  /** Each tunnel seen, by daemon, udid, address and port: the phone's epoch when first seen with it (undefined: not yet). */
  private readonly firstSeen = new Map<string, number | undefined>();
  /** The daemons seen answering since the agent started, by id. */
  readonly everUp = new Set<string>();

  /** One poll of every daemon, with the phones usbmuxd lists now. */
  observe(daemons: readonly DaemonNow[], phones: readonly PhoneNow[]) {
    for (const daemon of daemons) {
      if (daemon.state !== 'up') continue;
      this.everUp.add(daemon.id);
      const listed = new Set<string>();
      for (const tunnel of daemon.tunnels) {
        const key = keyOf(daemon, tunnel);
        listed.add(key);
        const epoch = phones.find((p) => sameUdid(tunnel.udid, p.udid))?.epoch;
        // First seen while usbmuxd did not list the phone (a Wi-Fi tunnel, or one the agent found at start while the
        // phone was away): dated by the first connection it is seen with, so it is never called stale on no evidence.
        if (this.firstSeen.has(key) ? this.firstSeen.get(key) === undefined : this.firstSeen.size < MAX_REMEMBERED) this.firstSeen.set(key, epoch);
      }
      // A tunnel the daemon no longer lists is gone; the same one listed again later would be new.
      for (const key of [...this.firstSeen.keys()]) if (key.startsWith(`${daemon.id}\n`) && !listed.has(key)) this.firstSeen.delete(key);
    }
  }

  verdict(phone: PhoneNow, daemons: readonly DaemonNow[]): TunnelVerdict {
    const up = daemons.filter((d) => d.state === 'up');
    let live: { daemon: DaemonRef; tunnel: TunnelRecord } | undefined;
    let stale: { daemon: DaemonRef; tunnel: TunnelRecord; why: 'before-reconnect' | 'no-port' } | undefined;
    let staleCount = 0;
    for (const daemon of up) {
      for (const tunnel of daemon.tunnels) {
        if (!sameUdid(tunnel.udid, phone.udid)) continue;
        const key = keyOf(daemon, tunnel);
        // Not dated yet (first seen while usbmuxd did not list the phone): the first connection it is seen with is this one.
        const fresh = this.firstSeen.has(key) && (this.firstSeen.get(key) ?? phone.epoch) === phone.epoch;
        if (fresh && tunnel.port !== 0) live ??= { daemon: ref(daemon), tunnel };
        else {
          staleCount++;
          stale ??= { daemon: ref(daemon), tunnel, why: tunnel.port === 0 ? 'no-port' : 'before-reconnect' };
        }
      }
    }
    if (live) return { state: 'live', ...live, stale: staleCount };
    if (stale) return { state: 'stale', ...stale };
    if (up.length > 0) return { state: 'none', daemons: up.map(ref) };
    const seen = daemons.filter((d) => this.everUp.has(d.id));
    if (seen.length > 0) return { state: 'unknown', daemons: seen.map((d) => ({ ...ref(d), state: d.state, why: d.state === 'up' ? '' : d.why })) };
    return { state: 'no-daemon', daemons: daemons.map(ref) };
  }
}

function keyOf(daemon: DaemonRef, tunnel: TunnelRecord) {
  return `${daemon.id}\n${tunnel.udid.replace(/-/g, '')}\n${tunnel.address}\n${tunnel.port}`;
}

const ref = ({ id, kind, url }: DaemonRef) => ({ id, kind, url });
