// A fact recovery publishes for the platform: the agent's own last cut of a device's transport (adb reconnect), so a
// dropped network phone's message blames that cut, not the phone's link. Kept by device: the address's record goes.
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
