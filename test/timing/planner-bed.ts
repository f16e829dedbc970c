// The planner with a device registry in front of it, as the agent runs it:
// adb's listing and the inventories' outcomes go into the registry, which the
// planner reads. Tests speak adb serials; the planner's plans name record keys.
import type { DeviceInfo } from '../../src/cloud/types.js';
import { recordKey } from '../../src/devices/record.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { ReportPlanner, type PlannedReport, type PlannerOptions } from '../../src/timing/planner.js';

export const keyOf = (serial: string): string => recordKey('android', serial);
export const serialOfKey = (key: string): string => key.slice(key.indexOf('/') + 1);
const serials = (keys: Iterable<string>): Set<string> => new Set([...keys].map(serialOfKey));

/** The planner as the agent runs it, in adb serials: a registry in front, the plans translated back. */
export class PlannerBed extends ReportPlanner {
  readonly registry: DeviceRegistry;
  private readonly listing = new Map<string, string>();

  constructor(options: PlannerOptions, registry = new DeviceRegistry()) {
    super(registry, options);
    this.registry = registry;
  }

  /** adb listed a device in a new state (to), or no longer (to undefined); a USB serial is its udid. */
  deviceChanged(serial: string, to: string | undefined, now: number): void {
    if (to === undefined) this.listing.delete(serial);
    else this.listing.set(serial, to);
    this.registry.sync('android', this.listing);
    if (to !== undefined) this.registry.readings.identify(keyOf(serial), serial);
    this.devicesChanged(now);
  }

  /** take(), with the inventories it asks for started (as the source does), and the plan in serials. */
  override take(now: number): PlannedReport | undefined {
    const plan = super.take(now);
    if (!plan) return undefined;
    for (const key of plan.refresh) if (!plan.hold.has(key) && this.registry.get(key)?.state === 'device') this.registry.readings.asked(key, now);
    return { ...plan, refresh: serials(plan.refresh), hold: serials(plan.hold) };
  }

  /** An inventory of a ready device answered in full (ok), or failed. */
  probeOutcome(serial: string, ok: boolean, now: number): void {
    const key = keyOf(serial);
    if (ok) this.registry.readings.answered(key, info(serial), now, now);
    else this.registry.readings.failed(key, 'did not answer', now, now);
  }

  /** adb tracking came back: the source forgives the inventories it cut off, the planner hears of it. */
  override sourceResumed(now: number): void {
    this.registry.readings.forgive('android');
    super.sourceResumed(now);
  }
}

function info(serial: string): DeviceInfo {
  return { udid: serial, serialNumber: serial, state: 'device', status: 'AVAILABLE', platformName: 'ANDROID', isAndroid: true, isIos: false };
}
