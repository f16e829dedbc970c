// The actions on devices (recovery, charge control, Samsung's battery
// protection, readiness's fix-it), built from the settings: moved here whole from the Agent's
// constructor, so that the Agent is wiring only.
import type { Parts } from './build.js';
import { Recovery, bookingGateOf } from '../actions/recovery/recovery.js';
import { ChargeControl } from '../actions/charge/charge.js';
import { PortCommand } from '../hub/port-command.js';
import { SamsungProtection } from '../actions/samsung/protection.js';
import { ReadinessFix } from '../actions/readiness-fix/fix.js';
import { hubPortsOf, type HubPort } from '../config/hub-ports.js';
import { chargeWaysOf, type ChargeWays } from '../config/charge-ways.js';
import { Uhubctl } from '../hub/uhubctl.js';
import { ActionRunner } from '../actions/runner.js';
import { DeviceMapping } from '../actions/device-mapping.js';

/** An action with a lifecycle, as the Agent starts and stops it; the runner tells it of changes. */
export interface Action {
  readonly name: string;
  start(): Promise<unknown> | void;
  stop(): Promise<unknown> | void;
}

export interface Actions {
  actions: Action[];
  /** Recovery, charge control and Samsung protection look through it: tell it when the devices change. */
  runner: ActionRunner;
  /** The operator's map of the hub port behind each phone (settings: hubPorts), read once. */
  hubPorts: ReadonlyMap<string, HubPort>;
  /** Which phones have charge control (settings: charge.ways), read once. */
  chargeWays: ChargeWays;
  /** The one look-up from a device to its port and charge way: the rows show what the actions would do. */
  mapping: DeviceMapping;
}

/** onChange: an action changed what a device's report says (a pause, a protection), worth a report. */
export function buildActions(parts: Parts, onChange: () => void): Actions {
  const { settings, logger, registry, clock } = parts;
  const hubPorts = hubPortsOf(settings.hubPorts);
  const chargeWays = chargeWaysOf(settings.charge.ways);
  // One gate for recovery and charge control: the host's status requests are bounded together.
  const gate = bookingGateOf(settings, clock);
  // One look-up from a device to its port and charge way: a key naming two phones is refused alike and said once.
  const mapping = new DeviceMapping({ hubPorts, chargeWays, networkDevices: settings.networkDevices, logger });
  // One runner for the actions: the gate's questions, the work in flight, the news for the cloud.
  const runner = new ActionRunner({ clock, gate, booking: parts.booking, onChange });
  const uhubctl = new Uhubctl(settings.recovery.powerCycleCommand);
  const recovery = new Recovery({
    runner,
    adb: parts.control,
    settings,
    stats: parts.stats,
    logger,
    registry,
    clock,
    booking: parts.booking,
    hubPorts: hubPorts,
    mapping,
    gate,
    ...(settings.recovery.powerCycle && { portPower: uhubctl }),
    ...(parts.usb && { usb: parts.usb }),
  });
  // Built even with no phone listed in charge.ways: ports a crashed run left
  // off must be switched on after charge control was turned off too.
  const charge = new ChargeControl({
    runner,
    phones: parts.control,
    registry,
    settings,
    hubPorts: hubPorts,
    mapping,
    ports: { uhubctl, ...(settings.charge.command && { command: new PortCommand(settings.charge.command) }) },
    gate,
    booking: parts.booking,
    stats: parts.stats,
    logger,
    clock,
    kept: parts.pausedPorts,
    powerPaths: parts.powerPaths,
  });
  const protection = new SamsungProtection({
    runner,
    phones: parts.control,
    registry,
    settings,
    mapping,
    gate,
    booking: parts.booking,
    stats: parts.stats,
    logger,
    clock,
  });
  // Readiness's fix-it action (readiness.fix, off by default): only while the cloud says the phone is not booked.
  const fix = new ReadinessFix({ runner, phones: parts.control, registry, settings, gate, booking: parts.booking, stats: parts.stats, logger, clock });
  const action = (name: string, a: { start(): Promise<unknown> | void; stop(): Promise<unknown> | void }): Action => ({
    name,
    start: () => a.start(),
    stop: () => a.stop(),
  });
  return {
    actions: [action('recovery', recovery), action('charge', charge), action('protection', protection), action('readiness-fix', fix)],
    runner,
    hubPorts,
    chargeWays,
    mapping,
  };
}
