// Finding a wireless-debugging phone again after it comes back on a new port,
// through what adb's mdns lists (adb/mdns.ts): pure, on the caller's clock.
//
// A phone with wireless debugging announces `_adb-tls-connect._tcp` under an
// instance name it keeps across reboots (`adb-SERIAL-GUID`, the GUID from its
// persist.adb.wifi.guid), on a port it draws anew each time wireless
// debugging starts. So the address the agent knew it by (networkDevices, or
// `adb connect`) dies with a reboot, while its name comes back. The name is
// the phone's own word, and anyone on the network can announce any name:
// - a name is tied to a phone only by the phone answering, at the address
//   the name is announced at, with its udid on its current connection
//   (learned), and then to that phone for good; never by what the name says
//   (a serial in it is not read);
// - a learned name is followed to a new address only while that phone is
//   not ready anywhere, and the address is connected, never trusted: the
//   device there must answer with the same udid, else it is disconnected
//   and not followed there again for an hour; one that does not answer in
//   FOLLOW_MS is disconnected too;
// - a name announced at two addresses at once is followed to neither;
// - at most MAX_CONNECTS a step, each address at most once per RETRY_MS.
import type { MdnsService } from './adb/mdns.js';

/** A network device adb lists now: its address (adb's serial), whether it is ready, and the udid it said on its current connection. */
export interface NetworkRecord {
  address: string;
  ready: boolean;
  udid?: string;
}

type FollowAct =
  | { kind: 'connect'; address: string; instance: string; udid: string; from: string }
  | { kind: 'found'; address: string; instance: string; udid: string }
  | { kind: 'refuse'; address: string; instance: string; udid: string; answered?: string }
  | { kind: 'ambiguous'; instance: string; addresses: readonly string[] };

export const RETRY_MS = 30_000;
export const FOLLOW_MS = 120_000;
export const REFUSE_MS = 3_600_000;
export const MAX_CONNECTS = 4;
/** Names learned: a lab's network phones are tens. */
const MAX_LEARNED = 1000;

export class MdnsFollow {
  /** Each learned name: the phone that answered at its address, and that address. */
  readonly learned = new Map<string, { udid: string; address: string }>();
  private readonly following = new Map<string, { instance: string; udid: string; since: number }>();
  private readonly refused = new Map<string, number>();
  private readonly attempts = new Map<string, number>();

  step(services: readonly MdnsService[], records: readonly NetworkRecord[], now: number) {
    const acts: FollowAct[] = [];
    const addressesOf = new Map<string, Set<string>>();
    for (const s of services)
      if (s.type === 'adb-tls-connect') (addressesOf.get(s.instance) ?? addressesOf.set(s.instance, new Set()).get(s.instance)!).add(s.address);
    const at = new Map(records.map((r) => [r.address, r]));
    for (const [key, until] of this.refused) if (until <= now) this.refused.delete(key);
    for (const [address, when] of this.attempts) if (now - when >= RETRY_MS) this.attempts.delete(address);

    // Learn: a ready phone that said who it is, at the one address a name is announced at; never a name already
    // learned for another phone (a name is one phone's: another announcing it, at an address connected on the
    // name's word or not, is a clone or a forgery, and takes nothing).
    for (const [instance, addresses] of addressesOf) {
      if (addresses.size !== 1) continue;
      const address = [...addresses][0]!;
      const record = at.get(address);
      if (!record?.ready || record.udid === undefined) continue;
      const known = this.learned.get(instance);
      if (known ? known.udid === record.udid : this.learned.size < MAX_LEARNED) this.learned.set(instance, { udid: record.udid, address });
    }

    // The addresses connected on a name's word: found when the phone there says it is the one, else let go.
    // One that says nothing within FOLLOW_MS is let go too.
    for (const [address, f] of this.following) {
      const answered = at.get(address)?.udid;
      if (answered === undefined && now - f.since < FOLLOW_MS) continue;
      this.following.delete(address);
      if (answered === f.udid) {
        this.learned.set(f.instance, { udid: f.udid, address });
        acts.push({ kind: 'found', address, instance: f.instance, udid: f.udid });
      } else {
        this.refused.set(`${f.instance}@${address}`, now + REFUSE_MS);
        acts.push({ kind: 'refuse', address, instance: f.instance, udid: f.udid, ...(answered !== undefined && { answered }) });
      }
    }

    // Follow: a learned phone not ready anywhere, its name announced at one new address.
    const ready = new Set(records.filter((r) => r.ready && r.udid !== undefined).map((r) => r.udid));
    let connects = 0;
    for (const [instance, { udid, address: from }] of this.learned) {
      if (ready.has(udid)) continue;
      const addresses = addressesOf.get(instance);
      if (!addresses) continue;
      if (addresses.size > 1) {
        acts.push({ kind: 'ambiguous', instance, addresses: [...addresses].sort() });
        continue;
      }
      const address = [...addresses][0]!;
      if (address === from || at.has(address) || this.following.has(address) || this.refused.has(`${instance}@${address}`) || this.attempts.has(address))
        continue;
      if (connects >= MAX_CONNECTS) break;
      connects++;
      this.attempts.set(address, now);
      this.following.set(address, { instance, udid, since: now });
      acts.push({ kind: 'connect', address, instance, udid, from });
    }
    return acts;
  }

  /** adb could not connect the address (the phone not listening yet): followed again after RETRY_MS, not refused. */
  connectFailed(address: string) {
    this.following.delete(address);
  }

  /** Whether any name is learned or followed: with none, and no network device, mdns need not be asked. */
  get idle() {
    return this.learned.size === 0 && this.following.size === 0;
  }
}
