// Quarantine's own series: counted by its action (quarantine.ts), served by
// its feature's metrics() hook (feature.ts).
import { counterKey } from '../../stats/counter.js';

export const QUARANTINES = counterKey(
  'device_agent_quarantines_total',
  'Phones taken out of service for failing again and again, by the layer their failures were blamed on (phone, port, readiness, cloud).',
  ['layer'],
);

export const QUARANTINE_RELEASES = counterKey(
  'device_agent_quarantine_releases_total',
  'Quarantines ended, by how: expiry (its time over and a check passed) or operator (device-agent quarantine release).',
  ['by'],
);

export const QUARANTINES_HELD = counterKey(
  'device_agent_quarantines_held_total',
  'Quarantines due but not started because the cloud said the phone is booked, or could not say (reason booked, unknown); once per cloud answer.',
  ['reason'],
);
