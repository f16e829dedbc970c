// A feature built as src/agent/build.ts builds it, for a test: the one
// factory signature over a context whose parts the test may give (the
// registry, the clock, the phones' door, the hub tool), the rest as the
// daemon makes them from the settings. Without a state directory nothing is
// kept across runs, and the USB layer reads nothing. An action runs on its
// own ActionRunner, as the daemon runs every action on one.
import { deviceMappingOf, type DeviceMapping } from '../../src/actions/device-mapping.js';
import { ActionRunner, type DeviceAction } from '../../src/actions/runner.js';
import { bookingGateOf, type BookingGate } from '../../src/booking/gate.js';
import type { BookingStatusSource } from '../../src/cloud/booking-status.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import { loadSettings } from '../../src/config/load.js';
import type { Settings } from '../../src/config/schema.js';
import type { PhoneControl } from '../../src/devices/control.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import type { FeatureContext, FeatureFactory } from '../../src/features/context.js';
import { Uhubctl } from '../../src/hub/uhubctl.js';
import { silentLogger, type Logger } from '../../src/log/logger.js';
import { ANDROID_READINESS } from '../../src/platforms/android/readiness.js';
import { ANDROID_FACTS } from '../../src/platforms/android/facts.js';
import type { PlatformFacts } from '../../src/platforms/facts.js';
import type { WearReader } from '../../src/platforms/wear.js';
import { platformNames, wearReader } from '../../src/agent/platforms.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import type { Clock, Timers } from '../../src/util/clock.js';
import { VirtualTime } from './virtual-time.js';
import { SharedParts } from '../../src/util/shared-parts.js';
import type { DeviceFeature } from '../../src/devices/feature.js';
import type { DeviceRow } from '../../src/devices/feature-view.js';
import type { Metric } from '../../src/util/metric.js';

export interface FeatureBedOptions<Phones extends PhoneControl> {
  /** The settings; default: the shipped ones with `env`, then `set` (by key: 'usb.sysfsRoot'), over them. */
  settings?: Settings;
  env?: Record<string, string>;
  set?: Record<string, unknown>;
  /** The USB layer's settings over the others. */
  usb?: Settings['usb'];
  registry?: DeviceRegistry;
  stats?: AgentStats;
  logger?: Logger;
  clock?: Clock & Timers;
  stateDir?: string;
  /** What the phones tell of their wear; default: the platforms' capability. */
  wear?: WearReader;
  /** The door to the phones; default: one that reaches none (a feature without an action needs nothing of it). */
  phones?: Phones;
  /** What the platforms read of a phone beyond DeviceInfo; default: Android's, from the registry's tier cache. */
  facts?: PlatformFacts;
  /** The port switcher; default: uhubctl as the settings name it (a test that switches gives its own). */
  uhubctl?: Partial<Uhubctl>;
  earlier?: readonly DeviceInfo[];
  shared?: SharedParts;
  /** The actions' look-up; default: the settings'. */
  mapping?: DeviceMapping;
}

export function featureContext<Phones extends PhoneControl = PhoneControl>(o: FeatureBedOptions<Phones> = {}): FeatureContext<Phones> {
  const loaded = o.settings ?? loadSettings({ env: o.env ?? {}, overrides: new Map(Object.entries(o.set ?? {})) });
  const settings = o.usb ? { ...loaded, usb: o.usb } : loaded;
  const logger = o.logger ?? silentLogger();
  const clock = o.clock ?? new VirtualTime().clock();
  return {
    settings,
    registry: o.registry ?? new DeviceRegistry(),
    stats: o.stats ?? new AgentStats(),
    logger,
    clock,
    stateDir: o.stateDir,
    earlier: o.earlier ?? [],
    platforms: {
      names: platformNames,
      readiness: ANDROID_READINESS,
      wear: o.wear ?? wearReader,
      facts: o.facts ?? ANDROID_FACTS,
      phones: o.phones ?? ({ platform: 'android' } as Phones),
    },
    mapping: o.mapping ?? deviceMappingOf(settings, logger),
    uhubctl: (o.uhubctl ?? new Uhubctl(settings.recovery.powerCycleCommand)) as Uhubctl,
    shared: o.shared ?? new SharedParts(),
  };
}

export interface ActionBedOptions {
  /** The booking gate; default: the settings'. None at all (`null`): a run that asks no cloud, as `list`'s. */
  gate?: BookingGate | null;
  booking?: BookingStatusSource;
  onChange?: () => void;
  /** How often it looks between events; default: its own. */
  tickMs?: number;
}

/** The action of a feature, on a runner of its own, as the daemon starts it: the handle a test drives. */
export function actionBed<Phones extends PhoneControl>(factory: FeatureFactory<Phones>, ctx: FeatureContext<Phones>, o: ActionBedOptions = {}) {
  const feature = factory(ctx);
  const action: DeviceAction = o.tickMs === undefined ? feature.action! : { ...feature.action!, tickMs: o.tickMs };
  const gate = o.gate === null ? undefined : (o.gate ?? bookingGateOf(ctx.settings, ctx.clock));
  const runner = new ActionRunner({
    clock: ctx.clock,
    registry: ctx.registry,
    stats: ctx.stats,
    logger: ctx.logger,
    ...(gate && { gate }),
    ...(o.booking && { booking: o.booking }),
    ...(o.onChange && { onChange: o.onChange }),
  });
  return {
    feature,
    action,
    runner,
    gate,
    start: () => runner.start(action),
    stop: () => runner.stop(action),
    /** An inventory answered or a listing changed: the action looks again now. */
    devicesChanged: () => runner.look(action),
    /** Resolves once the work and the questions in flight have ended. */
    settled: () => runner.settled(),
  };
}

/** A feature's series as /metrics shows them: its own, and its tallies counted over these phones' rows. */
export function featureSeries(feature: DeviceFeature, udids: readonly string[]): Metric[] {
  return [...(feature.metrics?.() ?? []), ...(feature.tallies?.(udids.map((udid) => ({ udid }) as DeviceRow)) ?? [])];
}
