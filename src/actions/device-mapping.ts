// The one look-up from a device to its hub port and charge way: every action and row asks it, so a key naming two phones
// is refused alike everywhere and said once.

import { chargeWaysOf, modelWayOf, ownWaysOf, type ChargeWay, type ChargeWays } from '../config/charge-ways.js';
import { hubPortsOf, type HubPort } from '../config/hub-ports.js';
import type { Settings } from '../config/schema.js';
import type { Logger } from '../log/logger.js';
import { limited } from '../log/limited.js';
import { SaidOnce } from '../log/said-once.js';
import { ClaimIndex, mappedFor, type Mapped } from './mapping-key.js';
import type { Claim } from '../devices/claims.js';

export interface DeviceMappingOptions {
  hubPorts: ReadonlyMap<string, HubPort>;
  chargeWays?: ChargeWays;
  /** The network addresses the agent connects: a key naming one is that phone's before adb lists it, not a udid-giver's. */
  networkDevices?: readonly string[];
  logger: Logger;
}

/** A charge way as the look-up found it: a refused own entry keeps every way off for the phone, models included. */
export type WayLookup = { kind: 'way'; way: ChargeWay } | Extract<Mapped<ChargeWay>, { kind: 'refused' }>;

export class DeviceMapping {
  private readonly ownWays: ReadonlyMap<string, ChargeWay>;
  private readonly ways: ChargeWays;
  /** Key conflicts said (the subject: the key and both phones' names), while those phones are there. */
  private readonly said = new SaidOnce();
  /** The claims of the last look, indexed once with the addresses to come (a look asks for every device with the same claims). */
  private last: { claims: readonly Claim[]; index: ClaimIndex; listed: ReadonlySet<string> } | undefined;

  constructor(private readonly o: DeviceMappingOptions) {
    this.ways = o.chargeWays ?? [];
    this.ownWays = ownWaysOf(this.ways);
  }

  /** The hub port mapped to the device, when its key names it alone (`claims`: one look's, not changed after: indexed once). */
  portOf(claim: Claim, claims: readonly Claim[]) {
    return this.seen(mappedFor(this.o.hubPorts, claim, this.indexed(claims).index), claims);
  }

  /** The device's charge way: its own entry when its key names it alone, else the first model that matches, else off. */
  wayOf(claim: Claim, claims: readonly Claim[], model: string | undefined): WayLookup {
    const own = this.seen(mappedFor(this.ownWays, claim, this.indexed(claims).index), claims);
    if (own.kind === 'refused') return own;
    return { kind: 'way', way: own.kind === 'mapped' ? own.value : modelWayOf(this.ways, model) };
  }

  /** The way that applies to the device, as the actions carry it out: off where its key is refused. */
  wayApplied(claim: Claim, claims: readonly Claim[], model: string | undefined) {
    const found = this.wayOf(claim, claims, model);
    return found.kind === 'way' ? found.way : 'off';
  }

  /** The claims and the addresses the agent connects that adb does not list (yet), each a phone to come. */
  private indexed(claims: readonly Claim[]) {
    if (this.last?.claims !== claims) {
      const listed = new Set(claims.map((c) => c.serial));
      const expected = (this.o.networkDevices ?? []).filter((a) => !listed.has(a)).map((serial) => ({ serial }));
      this.last = { claims, index: new ClaimIndex([...claims, ...expected]), listed };
    }
    return this.last;
  }

  /** Says a key naming two phones once while both are there (listed, or an address the agent connects); once one is gone, again. */
  private seen<T>(found: Mapped<T>, claims: readonly Claim[]) {
    const { listed } = this.indexed(claims);
    const there = (serial: string) => listed.has(serial) || (this.o.networkDevices ?? []).includes(serial);
    if (this.said.size > 0) {
      this.said.retain((id) => {
        const [, serial, byUdid] = JSON.parse(id) as [string, string, string[]];
        return there(serial) && byUdid.every((s) => listed.has(s));
      });
    }
    if (found.kind !== 'refused' || found.names.kind !== 'serial_and_udid') return found;
    const { key } = found;
    const { serial, serialUdid, byUdid } = found.names;
    if (!this.said.say(JSON.stringify([key, serial, byUdid]))) return found;
    const settings = [this.o.hubPorts.has(key) && 'hubPorts', this.ownWays.has(key) && 'charge.ways'].filter(Boolean).join(' and ');
    const first = listed.has(serial) ? `${serial} (udid ${serialUdid ?? 'not said yet'})` : `${serial} (a network device the agent connects, not on adb yet)`;
    const names = serialUdid !== undefined ? `${serialUdid} (the udid of ${serial}) or ` : '';
    limited(this.o.logger).warn(
      'mapping-key-conflict',
      { key, serial, udid: serialUdid, udidOf: byUdid },
      `the key ${key} in ${settings} names two phones: ${first} by its adb serial, and ${byUdid.join(', ')} by the udid it gives; ` +
        `no hub port is switched and no charge way applied through it for either. Map the phone you mean by a name no other device gives: ${names}${byUdid.join(', ')} (the adb serial of the phone giving ${key} as its udid)`,
      key,
    );
    return found;
  }
}

/** The host's one look-up, as the settings give it (hubPorts, charge.ways, networkDevices). */
export function deviceMappingOf(settings: Pick<Settings, 'hubPorts' | 'charge' | 'networkDevices'>, logger: Logger) {
  return new DeviceMapping({
    hubPorts: hubPortsOf(settings.hubPorts),
    chargeWays: chargeWaysOf(settings.charge.ways),
    networkDevices: settings.networkDevices,
    logger,
  });
}
