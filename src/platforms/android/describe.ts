// What the Android source says of each phone it knows, from its reading now: the source's own word, before the features
// add theirs. It reads the registry, and writes only what remembered.ts forgets and the once-per-connection line of a
// network device that never said who it is.
import { adbState, STATUS_UNAVAILABLE, type DeviceInfo } from '../../cloud/types.js';
import { composeMessage, withNotes } from '../../cloud/device-message.js';
import { facetKey } from '../../devices/facet.js';
import { recordKey } from '../../devices/record.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import type { DeviceRegistry } from '../../devices/registry.js';
import { TRANSPORT_CUT } from '../../devices/transport-cut.js';
import { limited } from '../../log/limited.js';
import type { Logger } from '../../log/logger.js';
import type { Clock } from '../../util/clock.js';
import { isTcpSerial } from '../../util/tcp-serial.js';
import type { AdbServerHealth } from './adb/server-health.js';
import { notReadyDeviceInfo, notReadyMessage } from './inventory/assemble.js';
import { forgotten, REMEMBERED, rememberedInfo, type RememberedPhone } from './remembered.js';

const PLATFORM = 'android';
const READY = 'device';

/** What the report says of one device, and the remembered network phone it stands for, if it is one (remembered.ts), or whether it is back on a new connection unanswered. */
interface Described {
  serial: string;
  info: DeviceInfo;
  phone?: RememberedPhone;
  back?: boolean;
}

interface DescriberOptions {
  registry: DeviceRegistry;
  logger: Logger;
  clock: Clock;
  /** The adb server's health: while it does not answer, each phone's word says so first. */
  server?: AdbServerHealth;
  /** The network addresses the agent keeps connected (settings: networkDevices): one off adb's list is not unplugged. */
  networkDevices?: readonly string[];
}

export class Describer {
  constructor(private readonly o: DescriberOptions) {}

  /** The remembered network phones adb does not list now, then each of `records` (sorted by serial), as the source says them. */
  all(records: readonly DeviceSnapshot[]) {
    const described = this.rememberedOffList();
    for (const record of records) {
      const remembered = this.remembered(record);
      const back = remembered ? undefined : this.backOnNewConnection(record);
      // A host-level cause first: while the adb server does not answer, what is said of a phone is its last known state, and why.
      const said = remembered?.info ?? back ?? this.describe(record);
      const info = said && withNotes(said, [this.o.server?.deviceNote()]);
      if (info) described.push({ serial: record.serial, info, phone: remembered?.phone, back: back !== undefined });
    }
    return described;
  }

  /** A TCP record that has not said who it is on this connection: the phone last identified at its address, if kept. */
  private remembered(record: DeviceSnapshot) {
    if (record.udid !== undefined || !isTcpSerial(record.serial)) return undefined;
    const phone = this.kept(record.key, true);
    return (
      phone && {
        info: rememberedInfo(phone, { serial: record.serial, state: record.state, failure: record.failure?.text, cut: this.cutAfter(record.serial, phone) }),
        phone,
      }
    );
  }

  /** The remembered network phones adb does not list now, while the rule keeps them. */
  private rememberedOffList() {
    const out: Described[] = [];
    for (const [key] of this.o.registry.facet(REMEMBERED).entries()) {
      if (this.o.registry.get(key)) continue;
      const serial = key.slice(PLATFORM.length + 1);
      // Off adb on purpose (its port switched off): the writer that owes it for that words it, with why.
      if (this.o.registry.presence.owesBefore('network-dropped', key, this.o.clock.monotonic())) continue;
      const phone = this.kept(key, false);
      if (phone) out.push({ serial, info: rememberedInfo(phone, { serial, state: undefined, cut: this.cutAfter(serial, phone) }), phone });
    }
    return out;
  }

  /** The remembered phone at this key, unless the rule forgets it now (said once, when it does). */
  private kept(key: string, listed: boolean) {
    const memory = this.o.registry.facet(REMEMBERED);
    const udid = memory.get(key);
    const last = this.o.registry.readings.lastAnswer(key);
    if (udid === undefined || last?.info.udid !== udid) return undefined;
    const phone: RememberedPhone = { udid, last: last.info, wallAt: last.wallAt, at: last.at };
    const serial = key.slice(PLATFORM.length + 1);
    const why = forgotten(phone, this.o.clock.monotonic(), { listed, keptConnected: this.o.networkDevices?.includes(serial) ?? false });
    if (why === undefined) return phone;
    memory.delete(key);
    limited(this.o.logger).info(
      'network-device-forgotten',
      { serial, udid: phone.udid },
      `network device ${phone.udid} at ${serial} is forgotten: ${why}; it is no longer reported with its last inventory (UNPLUGGED, unless its serial is on a USB port adb does not list)`,
      serial,
    );
  }

  /** The agent's own last cut of the address's transport after the phone's last inventory, if any, at its wall time. */
  private cutAfter(serial: string, phone: RememberedPhone) {
    const cut = this.o.registry.facet(TRANSPORT_CUT).get(recordKey(PLATFORM, serial));
    return cut && cut.at >= phone.at ? { atWall: this.o.clock.wall() - (this.o.clock.monotonic() - cut.at), what: cut.what } : undefined;
  }

  /**
   * A phone back on a new connection that has not answered on it yet keeps the fields it last gave, so the cloud never
   * gets it without its model. Owed in the presence ledger (unanswered).
   */
  private backOnNewConnection(record: DeviceSnapshot): DeviceInfo | undefined {
    if (record.state !== READY || record.last) return undefined;
    const { readings } = this.o.registry;
    const earlier = readings.earlier(record.key);
    if (!earlier || earlier.info.udid !== record.udid) return undefined;
    // Properties said on this connection are this connection's word (describe), not a phone back.
    if (earlier.props && readings.early(record.key)) return undefined;
    const message = record.failure
      ? advice(record)
      : `the device is back on a new adb connection and its inventory has not finished yet; reported with ${earlier.props ? 'what its system properties said on its last connection' : 'its last inventory'}, of ${new Date(earlier.wallAt).toISOString()}`;
    return { ...earlier.info, state: adbState(READY), status: STATUS_UNAVAILABLE, ...composeMessage([message]) };
  }

  /** What the report says of one device, from what is known now. */
  private describe(record: DeviceSnapshot): DeviceInfo | undefined {
    const { serial, state, failure } = record;
    const cached = state === READY ? record.last : undefined;
    if (cached) {
      // An inventory cut short is its own failure, and says so itself; a failure after it (a wedged shell) is told.
      if (!failure || cached.message === failure.text) return cached;
      return { ...cached, status: STATUS_UNAVAILABLE, ...composeMessage([advice(record)]) };
    }
    const early = state === READY ? this.o.registry.readings.early(record.key) : undefined;
    if (early) {
      // Its inventory is still running, or failed before it ended: who it is, from the properties it gave first.
      return {
        ...early.info,
        state: adbState(READY),
        status: STATUS_UNAVAILABLE,
        ...composeMessage([failure ? advice(record) : `${NOT_FINISHED}; ${FROM_PROPS}`]),
      };
    }
    if (record.udid === undefined && isTcpSerial(serial)) {
      // A TCP device that never said who it is is left out: adb's HOST:PORT is not its udid, and would be a phantom.
      const logged = this.o.registry.facet(LEFT_OUT_LOGGED);
      if (state !== READY && !logged.get(record.key)) {
        logged.set(record.key, true);
        // (A ready one whose inventory failed was logged with the failure.)
        limited(this.o.logger).warn(
          'network-device-unidentified',
          { serial, state },
          `network device ${serial} is ${state} and has not said who it is yet; it is left out of reports until it answers its inventory. ${notReadyMessage(state, serial)}`,
          serial,
        );
      }
      return undefined;
    }
    const info = notReadyDeviceInfo(serial, state, record.udid);
    if (state === READY) Object.assign(info, composeMessage([failure ? advice(record) : NOT_FINISHED]));
    return info;
  }
}

/** The phone has not answered its inventory: since when, how often, why, and what to do. */
function advice(record: DeviceSnapshot) {
  const failure = record.failure!;
  const since = new Date(failure.since).toISOString();
  const now = record.probing ? 'its inventory is still running; ' : '';
  return (
    `the device has not answered its adb shell inventory since ${since} (${record.failures} tries; ${failure.text}); ${now}` +
    'reported with its last known state. Replug or reboot it if this lasts; the agent asks it again less and less often meanwhile.'
  );
}

/** What a ready phone not yet inventoried on this connection says: the one wording, with or without its identity. */
const NOT_FINISHED = 'the inventory of the device has not finished yet';
const FROM_PROPS = 'reported with what its system properties say (its identity, model and Android version) until it ends';
/** Logged once per connection: a TCP device that has not said who it is is left out of reports. */
const LEFT_OUT_LOGGED = facetKey<true>('android-left-out-logged', 'connection');
