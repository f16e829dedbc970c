// Every feature, registered in one place and in the order their notes join a device's message and their view parts
// follow: adding one is a folder of src/features/ and a line here. The one file of src/ that names the features.
import { availabilityFeature } from '../features/availability/feature.js';
import { chargeFeature } from '../features/charge/feature.js';
import type { FeatureContext, FeatureFactory } from '../features/context.js';
import { adbAuthorizationFeature } from '../features/adb-authorization/feature.js';
import { healthFeature } from '../features/health/feature.js';
import { hostHeatFeature } from '../features/host-heat/feature.js';
import { iosDeveloperFeature } from '../features/ios-developer/feature.js';
import { quarantineFeature } from '../features/quarantine/feature.js';
import { readinessFixFeature } from '../features/readiness-fix/feature.js';
import { readinessFeature } from '../features/readiness/feature.js';
import { recorderFeature } from '../features/recorder/feature.js';
import { recoveryFeature } from '../features/recovery/feature.js';
import { samsungFeature } from '../features/samsung/feature.js';
import { trustFeature } from '../features/trust/feature.js';
import { usbFeature } from '../features/usb/feature.js';
import { wearFeature } from '../features/wear/feature.js';
import type { Platforms } from './platforms.js';
import { guarded } from '../devices/feature-guard.js';

/** The features, each built on the platform's control: the type checker holds it to what every feature needs of the phones. */
const FEATURES: ReadonlyArray<FeatureFactory<Platforms['control']>> = [
  recoveryFeature,
  samsungFeature,
  trustFeature,
  // What each phone tells of its wear, read once per inventory, and the days until a figure passes its limit. Before charge
  // control, so that its series and fields keep their places (before the free storage's, after health's).
  wearFeature,
  chargeFeature,
  // Publishes the phones on a port and off adb (before any annotate pass), which readiness judges.
  usbFeature,
  readinessFeature,
  readinessFixFeature,
  // iPhones from iOS 17: their tunnel on the host's daemon and the host's support of their iOS, after readiness's word.
  iosDeveloperFeature,
  // A phone away from the host warned about before it drops the host's adb key.
  adbAuthorizationFeature,
  // Judges each fresh reading before the annotate passes; its PROBLEMS column closes list's table.
  healthFeature,
  // After health, once per report: several phones hot together are one host-level line.
  hostHeatFeature,
  // Both read the others' verdicts in the timeline, not the report's fields: their place here orders only their columns and series.
  availabilityFeature,
  quarantineFeature,
  // Keeps each phone's ring, which the others add to, and its incidents.
  recorderFeature,
];

/** Each with its hooks isolated and timed (src/devices/feature-guard.ts). */
export function buildFeatures(ctx: FeatureContext<Platforms['control']>) {
  return FEATURES.map((build) => guarded(build(ctx), ctx));
}
