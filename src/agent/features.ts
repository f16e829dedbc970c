// Every feature that acts on a device, registered in one place, in the order
// their notes join a device's message, and in which what several add at one
// place of a view follows (src/devices/feature-view.ts): adding one is a
// folder with a DeviceFeature (src/devices/feature.ts) and a line here. A
// feature's action is built from here too (src/agent/actions.ts iterates
// this list).
import { chargeFeature } from '../features/charge/feature.js';
import { recoveryFeature } from '../features/recovery/feature.js';
import { samsungFeature } from '../features/samsung/feature.js';
import { readinessFixFeature } from '../features/readiness-fix/feature.js';
import { trustFeature } from '../features/trust/feature.js';
import type { DeviceFeature } from '../devices/feature.js';
import type { DeviceRegistry } from '../devices/registry.js';
import { OFF_SOURCE } from '../devices/off-source.js';
import { usbFeature } from '../features/usb/feature.js';
import type { UsbContext, UsbLayer } from '../features/usb/layer.js';
import { readinessFeature } from '../features/readiness/feature.js';
import { hostHeatFeature } from '../features/host-heat/feature.js';
import { healthFeature } from '../features/health/feature.js';
import type { HostHeat } from '../features/host-heat/host-heat.js';
import { readinessReader } from './platforms.js';
import type { Settings } from '../config/schema.js';
import { AgentStats } from '../stats/agent-stats.js';
import type { PowerPaths } from '../features/charge/power-paths.js';
import type { PausedPortsKeeper } from '../features/charge/paused-ports.js';
import type { ActionParts } from '../actions/parts.js';
import type { DeviceMapping } from '../actions/device-mapping.js';
import type { Platforms } from './platforms.js';

/** The features as the wiring holds them: each action is built with the parts every action shares, on the platform's control. */
export type Features = ReadonlyArray<DeviceFeature<ActionParts<Platforms['control']>>>;

/**
 * What the features that follow something of their own need: the daemon's
 * settings (the USB layer's kernel log and sysfs root, the lab's readiness
 * baseline), state directory, logger and clock; charge control's files (the
 * hub ports found not to cut power, for its notes and metrics, and those it
 * holds off, for its action); and the actions' look-up of ports and ways, for
 * the ways the rows show. None, as in tests that build the features alone:
 * the USB layer and readiness are off, and no way is shown. `stats`
 * holds the counters the actions write and the features serve (AgentStats.counter).
 */
type FeatureContext = UsbContext & {
  settings: Pick<Settings, 'usb'> & { readiness: Pick<Settings['readiness'], 'checks'> } & Partial<Pick<Settings, 'health'>>;
  powerPaths?: PowerPaths;
  /** Where charge control keeps the ports it holds off across a crash. */
  pausedPorts?: PausedPortsKeeper;
  /** The actions' one look-up of a device's port and charge way: the rows show the way the actions would apply. */
  mapping?: DeviceMapping;
  /** The host-level judge of hot batteries health's judging reads too; the host-heat feature makes its own without it. */
  heat?: HostHeat;
};

/** context.layer: the USB layer, when the caller keeps it too (the daemon's recovery reads its evidence); else the feature builds its own. */
export function buildFeatures(registry: DeviceRegistry, context?: FeatureContext & { layer?: UsbLayer }, stats = new AgentStats()): Features {
  return [
    recoveryFeature(registry, stats),
    samsungFeature(registry, stats, context?.mapping),
    trustFeature(stats),
    chargeFeature(registry, stats, { powerPaths: context?.powerPaths, kept: context?.pausedPorts, mapping: context?.mapping }),
    // Publishes the phones on a port and off adb, which readiness, registered after it, judges.
    usbFeature(context && { ...context, offSource: registry.facet(OFF_SOURCE), presence: registry.presence }),
    readinessFeature(registry, context?.settings.readiness.checks ?? [], readinessReader, context?.logger),
    readinessFixFeature(stats),
    // Judges each fresh reading before every feature's annotate pass (DeviceFeature.judge), and shows what the rules keep
    // of a device: its PROBLEMS column closes list's table, after the columns above. Judges nothing without the health settings.
    healthFeature(
      registry,
      context?.settings.health && { settings: context.settings.health, logger: context.logger, now: () => context.clock.wall(), heat: context.heat },
    ),
    // After health, once per report: several phones hot together are one host-level line; off without the health settings.
    ...(context?.settings.health ? [hostHeatFeature(context.settings.health, context.logger, () => context.clock.monotonic(), context.heat)] : []),
  ];
}
