// The actions on devices (recovery, charge control, Samsung's battery
// protection), built from the settings: moved here whole from the Agent's
// constructor, so that the Agent is wiring only.
import type { Parts } from './build.js';
import { Recovery, bookingGateOf } from '../recovery/recovery.js';
import { ChargeControl } from '../recovery/charge.js';
import { PortCommand } from '../recovery/port-command.js';
import { SamsungProtection } from '../recovery/samsung-protection.js';
import { hubPortsOf, type HubPort } from '../config/hub-ports.js';
import { chargeWaysOf, type ChargeWays } from '../config/charge-ways.js';
import { Uhubctl } from '../recovery/uhubctl.js';

/** An action with a lifecycle that looks at the devices again when they change. */
export interface Action {
  readonly name: string;
  start(): Promise<unknown> | void;
  stop(): Promise<unknown> | void;
  devicesChanged(): void;
}

export interface Actions {
  actions: Action[];
  /** The operator's map of the hub port behind each phone (settings: hubPorts), read once. */
  hubPorts: ReadonlyMap<string, HubPort>;
  /** Which phones have charge control (settings: charge.ways), read once. */
  chargeWays: ChargeWays;
}

/** onChange: an action changed what a device's report says (a pause, a protection), worth a report. */
export function buildActions(parts: Parts, onChange: () => void): Actions {
  const { settings, logger, registry, clock } = parts;
  const hubPorts = hubPortsOf(settings.hubPorts);
  const chargeWays = chargeWaysOf(settings.charge.ways);
  // One gate for recovery and charge control: the host's status requests are bounded together.
  const gate = bookingGateOf(settings, clock);
  const uhubctl = new Uhubctl(settings.recovery.powerCycleCommand);
  const recovery = new Recovery({
    adb: parts.android.adb,
    settings,
    stats: parts.stats,
    logger,
    registry,
    clock,
    booking: parts.booking,
    hubPorts: hubPorts,
    gate,
    ...(settings.recovery.powerCycle && { portPower: uhubctl }),
  });
  // Built even with no phone listed in charge.ways: ports a crashed run left
  // off must be switched on after charge control was turned off too.
  const charge = new ChargeControl({
    registry,
    settings,
    hubPorts: hubPorts,
    ports: { uhubctl, ...(settings.charge.command && { command: new PortCommand(settings.charge.command) }) },
    gate,
    booking: parts.booking,
    stats: parts.stats,
    logger,
    clock,
    kept: parts.pausedPorts,
    onChange: () => {
      onChange();
    },
  });
  const protection = new SamsungProtection({
    adb: parts.android.adb,
    registry,
    settings,
    gate,
    booking: parts.booking,
    stats: parts.stats,
    logger,
    clock,
    onChange: () => {
      onChange();
    },
  });
  const action = (name: string, a: { start(): Promise<unknown> | void; stop(): Promise<unknown> | void; devicesChanged(): void }): Action => ({
    name,
    start: () => a.start(),
    stop: () => a.stop(),
    devicesChanged: () => a.devicesChanged(),
  });
  return {
    actions: [action('recovery', recovery), action('charge', charge), action('protection', protection)],
    hubPorts,
    chargeWays,
  };
}
