// A fact an action publishes for the platform: the agent's own last cut of
// a device's transport (recovery's kick: adb -s SERIAL reconnect), by the
// record key of the address it cut. Recovery writes it
// (src/features/recovery/escalations.ts), the Android source reads it to
// blame that cut, not the phone's network link, in a dropped network
// phone's message (src/platforms/android/remembered.ts); so the platform
// asks no feature, and neither imports the other. Kept by device: the
// address's record goes with the cut.
import { facetKey } from './facet.js';

/** When the agent itself cut a device's transport, and how: what a phone's message blames instead of the phone. */
export interface TransportCut {
  /** Monotonic ms of the cut. */
  at: number;
  /** What cut it, as the message says it ("recovery kicked its adb transport"). */
  what: string;
}

/** The last cut of each address's transport; a later cut replaces it. */
export const TRANSPORT_CUT = facetKey<TransportCut>('transport-cut', 'device');
