// The state a phone is in now and the layer its being out of service is
// blamed on, decided without I/O from what the agent already knows of it:
// the registry (its source's state, its inventory's answers and failures),
// the presence ledger's reason for carrying it, the USB layer's word on its
// port, the facts other features publish (quarantined, a person needed, on
// a port but off its source's list), readiness's flag in the report, and the
// cloud's answers. The first rule that matches decides (README.md, "How a
// second is counted").
import type { OffListMode } from '../../devices/off-source.js';
import type { Layer, PhoneState } from '../../devices/phone-state.js';
import type { PresenceKind } from '../../devices/presence.js';

/** What the clock reads of one phone at one moment, as values. */
export interface PhoneLook {
  /**
   * Its record, when its source lists it: the state the source gives, its failed inventories in a row, whether one
   * answered on this connection, and whether one answered on an earlier connection with none failing since (back from
   * a flap: the report carries it with that inventory).
   */
  record?: { state: string; failures: number; answered: boolean; answeredBefore?: boolean };
  /** Whether its platform's service (the adb server, usbmuxd) answers; undefined: not known. */
  sourceUp?: boolean;
  /** Why the last report carried it though its source did not list it. */
  carried?: PresenceKind;
  /** On a USB port and off its source's list (the USB layer's fact, published with a report), with what its interfaces show. */
  offSource?: { mode?: OffListMode };
  /** Whether the USB layer sees it on a port now (sysfs shows its serial); undefined: the layer does not read USB. */
  onPort?: boolean;
  /** What the USB layer blames for its port now (controller, hub-power, hub, port, phone), when anything. */
  usb?: string;
  /** Quarantined, with the layer its failures were blamed on. */
  quarantined?: { layer?: Layer };
  /** Recovery can do no more and asks for a person. */
  personNeeded?: boolean;
  /** Its last report disabled Appium on it for its readiness (not the host's setting, not a quarantine). */
  readinessOut?: boolean;
  /** Its last report had it UNAVAILABLE for a reason of its own (a hot battery). */
  unavailable?: boolean;
  /** What the cloud last stored of it: its status, and whether it refused it. */
  cloud: { status?: string; refused: boolean };
  /** Reports do not reach the cloud (from the first that failed until one is delivered): nobody can book it through the cloud. */
  cloudBehind?: boolean;
  /** The layer of its last time out of service: a report composed then, which the cloud took late, keeps it out for that. */
  outBefore?: Layer;
  /** Its inventories fail together with most others': the host's (src/devices/starved.ts). */
  starved?: boolean;
}

/** 'carry': blamed on whatever took it out, while it comes back (the clock keeps the layer of the stretch it ends). */
export type Blame = Layer | 'carry';

export interface Verdict {
  state: PhoneState;
  layer?: Blame;
  /** For 'carry': the layer when there is nothing to carry (it was in service just before). */
  fallback?: Layer;
  /** Known only when an inventory asks (its inventories failing, adb listing it): its time counts up to each failure, the rest when an inventory says more. */
  held?: true;
}

/** A phone's own modes that a person must get it out of. */
const PHONE_MODES = new Set(['recovery', 'bootloader', 'sideload', 'rescue']);
/** States in which the phone waits for a person to let the host in (its RSA prompt, its Trust prompt): its readiness. */
const NOT_LET_IN = new Set(['unauthorized', 'unpaired']);

/** The USB layer's layers as the clock names them. */
const USB_LAYERS = new Map<string | undefined, Layer>([
  ['controller', 'controller'],
  ['hub', 'hub'],
  ['hub-power', 'hub'],
  ['port', 'port'],
  ['phone', 'phone'],
]);

export function classify(look: PhoneLook): Verdict {
  if (look.quarantined) {
    // Quarantined: blamed on what keeps it out now when something does, else on what took it out (the quarantine's failures when it was in service).
    const now = classify({ ...look, quarantined: undefined, unavailable: false });
    const layer = look.quarantined.layer ?? 'phone';
    const concrete = now.state !== 'in_service' && now.state !== 'in_transition' && now.layer !== 'carry';
    return concrete ? { state: 'quarantined', layer: now.layer! } : { state: 'quarantined', layer: 'carry', fallback: layer };
  }
  const usb = USB_LAYERS.get(look.usb);
  const { record } = look;
  if (!record) {
    if (look.carried === 'charge-paused') return { state: 'in_transition', layer: 'host' };
    // Off its port by the kernel's word: unplugged, whether or not adb answers meanwhile.
    if (look.onPort === false) return { state: 'gone', layer: usb ?? 'port' };
    if (look.carried === 'source-failed' || look.sourceUp === false) return { state: 'in_transition', layer: 'adb' };
    // The layer's fact holds until the next report (a phone that left its port since is gone, above).
    if (look.offSource) {
      if (look.offSource.mode === 'bootloader') return { state: 'needs_person', layer: 'phone' };
      // It offers adb's own interface and adb does not take it: the host's service.
      if (look.offSource.mode === 'offers-source') return { state: 'in_transition', layer: 'adb' };
      return { state: 'needs_person', layer: 'readiness' };
    }
    // On its port and off the list before a report has said why: most often its USB debugging went off (the report's
    // look at its interfaces, when it comes, may say its bootloader or adb's own service instead).
    if (look.onPort && look.carried === undefined) return { state: 'needs_person', layer: 'readiness' };
    if (look.carried === 'network-dropped') return { state: 'auto_recovery', layer: 'phone' };
    if (look.carried === 'unanswered') return { state: 'in_transition', layer: 'carry' };
    // Gone from the host: its link ended (unplugged, a cable that let go), unless the USB layer blames more.
    return { state: 'gone', layer: usb ?? 'port' };
  }
  if (look.sourceUp === false) return { state: 'in_transition', layer: 'adb' };
  if (look.personNeeded) return { state: 'needs_person', layer: usb ?? 'phone' };
  if (NOT_LET_IN.has(record.state)) return { state: 'needs_person', layer: 'readiness' };
  if (record.state === 'no permissions') return { state: 'needs_person', layer: 'host' };
  if (PHONE_MODES.has(record.state)) return { state: 'needs_person', layer: 'phone' };
  // Offline: a phone in service that drops is the phone's; one coming back (replugged, debugging on again) shows offline
  // on its way, and stays blamed on what took it out. Off its port by the kernel's word, it was unplugged, whatever adb
  // still lists (a connection adb has not dropped yet).
  if (record.state === 'offline' && look.onPort === false && look.carried !== 'charge-paused') return { state: 'gone', layer: usb ?? 'port' };
  if (record.state === 'offline') return usb ? { state: 'auto_recovery', layer: usb } : { state: 'auto_recovery', layer: 'carry', fallback: 'phone' };
  if (record.failures > 0 && look.starved) return { state: 'in_transition', layer: 'host' };
  if (record.failures > 0) return usb ? { state: 'auto_recovery', layer: usb } : { state: 'auto_recovery', layer: 'phone', held: true };
  // Back on a new connection after answering on the last: the report carries it with that inventory, and the cloud's word decides.
  // Its first answer on this one waits for a report; while reports do not reach the cloud, that wait is the cloud's.
  if (!record.answered && record.answeredBefore !== true) return { state: 'in_transition', layer: look.cloudBehind ? 'cloud' : 'carry' };
  if (look.readinessOut) return { state: 'needs_person', layer: 'readiness' };
  if (look.cloud.refused) return { state: 'needs_person', layer: 'cloud' };
  // The report's UNAVAILABLE of a connection that has not answered yet is the report's wait for it, not a reading.
  if (look.unavailable && record.answered) return { state: 'needs_person', layer: 'phone' };
  // Usable here, but the cloud does not hear the agent: out, on the cloud, until a report reaches it.
  if (look.cloudBehind) return { state: 'in_transition', layer: 'cloud' };
  // Only the cloud's word keeps it out: blamed on what took it out, even once back in service for the agent (the cloud took a
  // report composed while it was out after the one that had it back).
  if (look.cloud.status !== 'AVAILABLE') return { state: 'in_transition', layer: 'carry', fallback: look.outBefore };
  return { state: 'in_service' };
}
