// What every action is built with: the wiring (src/agent/actions.ts) builds
// these once and hands them to each feature's action (DeviceFeature.action),
// so that the actions share one runner, one booking gate and one look-up, and
// the wiring names none of them.
import type { BookingGate } from '../booking/gate.js';
import type { BookingStatusSource } from '../cloud/booking-status.js';
import type { HubPort } from '../config/hub-ports.js';
import type { Settings } from '../config/schema.js';
import type { PhoneControl } from '../devices/control.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { UsbEvidence } from '../devices/usb-evidence.js';
import type { Uhubctl } from '../hub/uhubctl.js';
import type { Logger } from '../log/logger.js';
import type { AgentStats } from '../stats/agent-stats.js';
import type { Clock, Timers } from '../util/clock.js';
import type { DeviceMapping } from './device-mapping.js';
import type { ActionRunner } from './runner.js';

/** `Phones`: what an action needs of the platform's door to its phones; the wiring hands the platform's control, which has it. */
export interface ActionParts<Phones extends PhoneControl = PhoneControl> {
  /** The gate's questions, the work in flight and the news for the cloud, kept once for every action. */
  runner: ActionRunner;
  /** The host's status requests are bounded together. */
  gate: BookingGate;
  /** Whom the gate asks; none for a command that asks no cloud. */
  booking: BookingStatusSource | undefined;
  /** The one look-up from a device to its port and charge way: a key naming two phones is refused alike and said once. */
  mapping: DeviceMapping;
  /** The operator's map of the hub port behind each phone (settings: hubPorts), read once. */
  hubPorts: ReadonlyMap<string, HubPort>;
  phones: Phones;
  /** The port switcher of recovery.powerCycleCommand, for power cycles and charge pauses alike. */
  uhubctl: Uhubctl;
  /** The USB layer's word on each phone, read-only. */
  usb?: UsbEvidence;
  settings: Settings;
  registry: DeviceRegistry;
  stats: AgentStats;
  logger: Logger;
  clock: Clock & Timers;
}
