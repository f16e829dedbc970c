// What every feature is built with, and what a feature is: each folder of src/features/ exports one factory of this
// signature, named only in src/agent/features.ts. The context names no feature: a shared part is reached by its key.
import type { DeviceMapping } from '../actions/device-mapping.js';
import type { DeviceAction } from '../actions/runner.js';
import type { DeviceInfo } from '../cloud/types.js';
import type { Settings } from '../config/schema.js';
import type { PhoneControl } from '../devices/control.js';
import type { DeviceFeature } from '../devices/feature.js';
import type { DeviceRegistry } from '../devices/registry.js';
import type { Uhubctl } from '../hub/uhubctl.js';
import type { Logger } from '../log/logger.js';
import type { BatteryFacts, CheckItem } from '../platforms/doctor.js';
import type { PlatformFacts } from '../platforms/facts.js';
import type { ReadinessReader, ReadinessReading } from '../platforms/readiness.js';
import type { PlatformName } from '../platforms/source.js';
import type { WearReader, WearReading } from '../platforms/wear.js';
import type { AgentStats } from '../stats/agent-stats.js';
import type { Clock, Timers } from '../util/clock.js';
import type { SharedParts } from '../util/shared-parts.js';

/** `Phones`: what a feature needs of the platform's door to its phones; the registration list checks the platform's control has it. */
export interface FeatureContext<Phones extends PhoneControl = PhoneControl> {
  settings: Settings;
  registry: DeviceRegistry;
  /** Where a feature's counters are kept (stats.counter(KEY)); /metrics serves those it names in `counters`. */
  stats: AgentStats;
  logger: Logger;
  /** The one time line: what decides on time reads it, and the timers run on it. */
  clock: Clock & Timers;
  /** Where a feature keeps its files across restarts; none: it keeps them in memory only. */
  stateDir: string | undefined;
  /** The devices the last run reported (reported-devices.json), for a feature that carries them on. */
  earlier: readonly DeviceInfo[];
  /**
   * What the platforms offer: every platform's names, the readings readiness judges, what the phones tell of their
   * wear, what they read of a phone that no DeviceInfo field carries (src/platforms/facts.ts), and the door to the
   * phones the actions act on.
   */
  platforms: {
    names: readonly PlatformName[];
    readiness: ReadinessReader;
    wear: WearReader;
    facts: PlatformFacts;
    phones: Phones;
  };
  /** The actions' one look-up from a device to its hub port and charge way: a key naming two phones is refused alike and said once. */
  mapping: DeviceMapping;
  /** The port switcher of recovery.powerCycleCommand, for power cycles and charge pauses alike. */
  uhubctl: Uhubctl;
  /** What two features share, by the key its owner declares. */
  shared: SharedParts;
}

/** A feature as registered: its hooks into the report and the views, its action and its doctor lines. */
export interface Feature extends DeviceFeature {
  /** What it does to devices, driven by the runner (src/actions/runner.ts); started after the sources, in ACTS_ON's order. */
  readonly action?: DeviceAction;
  /** What it checks in `doctor` (src/cli/doctor.ts iterates the registration list). */
  readonly doctor?: FeatureDoctor;
}

/** A phone as the doctor's one shell of it read it, for the features' lines about it. */
export interface DoctorPhone {
  serial: string;
  /** The phone service's state of it (ready or not). */
  state: string;
  /** Its USB path, from the service's long listing; none over TCP, or without the listing. */
  usb?: string;
  /** Its battery, when a feature reads it (FeatureDoctor.reads) and the shell answered. */
  battery?: BatteryFacts;
  /** Its readiness part, when a feature reads it: the reading (none when cut short or unreadable) and the phone's brand. */
  readiness?: { reading: ReadinessReading | undefined; brand?: string };
  /** What it told of its wear, when a feature reads it and a wear section answered. */
  wear?: WearReading;
  /** The udid the report gives it, read in the doctor's one shell (its adb serial where it gives none or was not read). */
  udid?: string;
  /** Why its shell told not all it was asked (the phone not ready, its shell failed or cut short): the parts it lacks are unread. */
  unread?: string;
}

/** A feature's lines in `doctor`, each in its place of the checklist. */
export interface FeatureDoctor {
  /** What the doctor's one shell of each ready phone prints for these lines too. */
  readonly reads?: ReadonlyArray<'battery' | 'readiness' | 'wear'>;
  /** Among the configuration's lines: a program the settings call on. */
  config?(env: NodeJS.ProcessEnv): Promise<CheckItem[]>;
  /** After each phone's own line. */
  phone?(phone: DoctorPhone): CheckItem[];
  /** After every phone's lines: what the feature says of them together. */
  phones?(phones: readonly DoctorPhone[]): CheckItem[];
  /** After those: where the phones plug in. */
  ports?(phones: readonly DoctorPhone[]): CheckItem[];
  /** After the phone service's section: the host's own lines. */
  host?(env: NodeJS.ProcessEnv): CheckItem[];
  /** An iPhone (its udid) whose source read its readiness facts in a session of its own (its lockdown): its line, or none when not judged. */
  readonly facts?: (udid: string, facts: ReadonlyMap<string, string>, brand: string | undefined) => CheckItem | undefined;
}

/** The one signature of a feature's factory. */
export type FeatureFactory<Phones extends PhoneControl = PhoneControl> = (ctx: FeatureContext<Phones>) => Feature;
