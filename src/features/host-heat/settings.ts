// Host heat's settings (under health.*): how many phones turning hot how close together are one host-level episode.
import type { Field } from '../../config/field.js';
export const hostHeatSettings = {
  'health.hostHotPhones': {
    type: 'integer',
    default: 3,
    min: 2,
    max: 1000,
    help: 'this many phones of the host turning hot within `health.hostHotWindowMinutes` of each other are one host-level episode (the room or the host, not the phones): one warning naming them, a note on each, `device_agent_host_hot_episode` 1',
  },
  'health.hostHotWindowMinutes': {
    type: 'integer',
    default: 10,
    min: 1,
    max: 1440,
    help: 'how close together (minutes) the phones of `health.hostHotPhones` must turn hot to be one host-level episode',
  },
} as const satisfies Record<string, Field>;
