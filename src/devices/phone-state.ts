// A capability one feature offers the others: the state each phone is in now
// and the layer its being out of service is blamed on, as in-service time
// counts it (src/features/availability/). Quarantine asks it whether a
// failure is the phone's own (src/features/quarantine/), and neither feature
// imports the other. Declared here, below both.
import { sharedKey } from '../util/shared-parts.js';

/** Where a phone's time goes: in service, or out in one of five ways (Mobile Harness's states, with quarantine and gone apart). */
export const PHONE_STATES = ['in_service', 'in_transition', 'auto_recovery', 'needs_person', 'quarantined', 'gone'] as const;
export type PhoneState = (typeof PHONE_STATES)[number];

/**
 * What an out-of-service second is blamed on: the phone, its port or cable,
 * its hub (and the hub's power), the USB controller, the host (the agent not
 * running, a pause it made on purpose, its permissions), the adb server or
 * usbmuxd, the cloud, or the phone's readiness for automation (its settings).
 */
export const LAYERS = ['phone', 'port', 'hub', 'controller', 'host', 'adb', 'cloud', 'readiness'] as const;
export type Layer = (typeof LAYERS)[number];

/** The layers a failure of one phone alone may be blamed on: what quarantining that phone can keep from failing a session. */
export const PHONE_OWN_LAYERS: ReadonlySet<Layer> = new Set(['phone', 'port', 'readiness', 'cloud']);

export interface PhoneStateNow {
  state: PhoneState;
  /** None while in service. */
  layer?: Layer;
  /** Wall ms since when it has been in this state. */
  since: number;
}

export interface PhoneStates {
  /** The phone the cloud knows by this udid, as the agent sees it now; undefined when it never saw it. */
  now(udid: string): PhoneStateNow | undefined;
}

/** Where the in-service clock offers the phones' states (FeatureContext.shared). */
export const PHONE_STATE = sharedKey<PhoneStates>('phone-states');
