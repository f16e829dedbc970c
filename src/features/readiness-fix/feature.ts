// Readiness's fix-it action as the report sees it: its counter on /metrics; and the action (fix.ts).
import type { SettingsWriter } from '../../devices/control.js';
import type { Feature, FeatureContext } from '../context.js';
import { READINESS_FIXES, readinessFix } from './fix.js';

export function readinessFixFeature(ctx: FeatureContext<SettingsWriter>): Feature {
  return {
    name: 'readiness-fix',
    // readiness.fix, off by default: only while the cloud says the phone is not booked.
    action: readinessFix(ctx),
    counters: [READINESS_FIXES],
  };
}
