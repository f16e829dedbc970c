// Which phone a mapping key names. A hubPorts or charge.ways key is "a udid or an adb serial", and the two overlap: a
// phone chooses its udid, so it can give another phone's serial as its udid. A key is acted on only for the one phone it
// names; a key that is one device's serial and another's udid names neither. Pure.

import { isTcpSerial } from '../util/tcp-serial.js';
import type { Claim } from '../devices/claims.js';

/** What one key names among the devices listed (and the network addresses the agent expects). */
export type KeyNames =
  /** No device: the phone is not here (yet). */
  | { kind: 'none' }
  /** One phone: one device, or one phone's USB device and its TCP twin (adb tcpip), all giving the key as udid. */
  | { kind: 'one'; serials: readonly string[] }
  /** The serial of a USB device that has not said its udid yet, and the udid of network devices: its twin, or other phones. Known once it answers. */
  | { kind: 'unsure'; serial: string; byUdid: readonly string[] }
  /** The adb serial of one device and the udid other devices give: two phones. */
  | { kind: 'serial_and_udid'; serial: string; serialUdid?: string; byUdid: readonly string[] }
  /** The udid several phones give (two USB devices, or network devices only): conflictsOf names it too. */
  | { kind: 'shared_udid'; serials: readonly string[] };

export function keyNames(key: string, claims: readonly Claim[]) {
  return namesOf(
    key,
    claims.find((c) => c.serial === key),
    claims.filter((c) => c.udid === key && c.serial !== key),
  );
}

/** What `key` names, from the device listed under it as serial (the first) and those giving it as udid under another serial. */
function namesOf(key: string, bySerial: Claim | undefined, byUdid: readonly Claim[]): KeyNames {
  if (!bySerial && byUdid.length === 0) return { kind: 'none' };
  if (byUdid.length === 0) return { kind: 'one', serials: [key] };
  const udidSerials = byUdid.map((c) => c.serial).sort();
  if (bySerial && bySerial.udid !== key) {
    // Not said yet: if it gives the key too, it may be the USB side of the network devices giving it (one phone).
    const twin = bySerial.udid === undefined && !isTcpSerial(bySerial.serial) && byUdid.every((c) => isTcpSerial(c.serial));
    if (twin) return { kind: 'unsure', serial: bySerial.serial, byUdid: udidSerials };
    return { kind: 'serial_and_udid', serial: bySerial.serial, ...(bySerial.udid !== undefined && { serialUdid: bySerial.udid }), byUdid: udidSerials };
  }
  const all = bySerial ? [bySerial, ...byUdid] : byUdid;
  const serials = all.map((c) => c.serial).sort();
  if (all.length === 1) return { kind: 'one', serials };
  // The rule of conflictsOf: one phone over USB and TCP at once; two USB devices, or network ones only, are several phones.
  return all.filter((c) => !isTcpSerial(c.serial)).length === 1 ? { kind: 'one', serials } : { kind: 'shared_udid', serials };
}

/** One look's claims indexed by serial and udid: looking every device up against the others is then linear, not square. */
export class ClaimIndex {
  private readonly bySerial = new Map<string, Claim>();
  private readonly byUdid = new Map<string, Claim[]>();

  constructor(claims: readonly Claim[]) {
    for (const c of claims) {
      // The first under a serial, as a scan finds it.
      if (!this.bySerial.has(c.serial)) this.bySerial.set(c.serial, c);
      if (c.udid === undefined) continue;
      const same = this.byUdid.get(c.udid);
      if (same) same.push(c);
      else this.byUdid.set(c.udid, [c]);
    }
  }

  /** keyNames(key, [claim, ...the claims under another serial than claim's]): what the key names with `claim` standing for its serial. */
  namesWith(key: string, claim: Claim) {
    const bySerial = key === claim.serial ? claim : this.bySerial.get(key);
    const byUdid = (this.byUdid.get(key) ?? []).filter((c) => c.serial !== key && c.serial !== claim.serial);
    if (claim.udid === key && claim.serial !== key) byUdid.unshift(claim);
    return namesOf(key, bySerial, byUdid);
  }
}

/** A device's entry in a mapping (hubPorts, charge.ways' own entries), as the look-up found it. */
export type Mapped<T> =
  /** Neither its udid nor its serial is a key. */
  | { kind: 'none' }
  /** Its key names it and no other phone. */
  | { kind: 'mapped'; key: string; value: T }
  /** Its key names another phone, or more than one: nothing is done through it. */
  | { kind: 'refused'; key: string; value: T; names: Exclude<KeyNames, { kind: 'one' | 'none' }> | { kind: 'other'; serials: readonly string[] } };

/** The entry of the device `claim`, by udid then serial, kept only when that key names this phone alone (`claims`: all listed). */
export function mappedFor<T>(entries: ReadonlyMap<string, T>, claim: Claim, claims: readonly Claim[] | ClaimIndex): Mapped<T> {
  const key = [claim.udid, claim.serial].find((k): k is string => k !== undefined && entries.has(k));
  if (key === undefined) return { kind: 'none' };
  const value = entries.get(key)!;
  const names = (claims instanceof ClaimIndex ? claims : new ClaimIndex(claims)).namesWith(key, claim);
  if (names.kind === 'none') return { kind: 'none' };
  if (names.kind !== 'one') return { kind: 'refused', key, value, names };
  return names.serials.includes(claim.serial)
    ? { kind: 'mapped', key, value }
    : { kind: 'refused', key, value, names: { kind: 'other', serials: names.serials } };
}

/** Why nothing is done through a key, in a refusal line and a device's message. */
export function keyRefusalText(key: string, names: Extract<Mapped<unknown>, { kind: 'refused' }>['names']) {
  const givers = 'byUdid' in names ? `${names.byUdid.join(', ')} ${names.byUdid.length === 1 ? 'gives' : 'give'}` : '';
  switch (names.kind) {
    case 'serial_and_udid':
      return `the mapping key ${key} is the adb serial of ${names.serial} and the udid ${givers}: it names two phones`;
    case 'unsure':
      return `the mapping key ${key} is the adb serial of ${names.serial}, which has not said its udid yet, and the udid ${givers}: one phone over USB and TCP, or two`;
    case 'shared_udid':
      // The trust model's identity conflict, in its words (conflictText).
      return `${names.serials.length} devices (adb serials ${names.serials.join(', ')}) give the udid ${key}`;
    case 'other':
      return `the mapping key ${key} names ${names.serials.join(', ')}`;
  }
}
