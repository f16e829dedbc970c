// The actions on devices, each declared by its feature (DeviceFeature.action)
// and built here from the parts they share: the wiring iterates the
// registered features (src/agent/features.ts) and names none of them.
import type { Parts } from './build.js';
import { bookingGateOf } from '../booking/gate.js';
import { hubPortsOf, type HubPort } from '../config/hub-ports.js';
import { Uhubctl } from '../hub/uhubctl.js';
import { ActionRunner } from '../actions/runner.js';
import type { ActionParts } from '../actions/parts.js';
import { actionsOf, type Service } from '../devices/feature.js';

/** An action with a lifecycle, as the Agent starts and stops it; the runner tells it of changes. */
export type Action = Service;

export interface Actions {
  actions: Action[];
  /** The actions look through it: tell it when the devices change. */
  runner: ActionRunner;
  /** The operator's map of the hub port behind each phone (settings: hubPorts), read once. */
  hubPorts: ReadonlyMap<string, HubPort>;
}

/** onChange: an action changed what a device's report says (a pause, a protection), worth a report. */
export function buildActions(parts: Parts, onChange: () => void): Actions {
  const shared = sharedParts(parts, onChange);
  return {
    // Wrapped, so that the Agent stops each without arguments (charge control's bound is its own).
    actions: actionsOf(parts.features).map((declared) => {
      const action = declared.build(shared);
      return { name: action.name, start: () => action.start(), stop: () => action.stop() };
    }),
    runner: shared.runner,
    hubPorts: shared.hubPorts,
  };
}

/** What the features read once for a command that changes nothing (`list`): no gate is asked, nothing is written. */
export async function readOnce(parts: Parts): Promise<void> {
  const shared = sharedParts(parts, () => undefined);
  for (const declared of actionsOf(parts.features)) await declared.readOnce?.(shared);
}

function sharedParts(parts: Parts, onChange: () => void): ActionParts<Parts['control']> {
  const { settings, logger, registry, clock, stats, booking } = parts;
  // One gate for every action: the host's status requests are bounded together.
  const gate = bookingGateOf(settings, clock);
  return {
    runner: new ActionRunner({ clock, gate, booking, onChange }),
    gate,
    booking,
    mapping: parts.mapping,
    hubPorts: hubPortsOf(settings.hubPorts),
    phones: parts.control,
    uhubctl: new Uhubctl(settings.recovery.powerCycleCommand),
    usb: parts.usb,
    settings,
    registry,
    stats,
    logger,
    clock,
  };
}
