// Readiness's fix-it action as the report sees it: its counter on /metrics.
import type { DeviceFeature } from '../../devices/feature.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { READINESS_FIXES } from './counts.js';

export function readinessFixFeature(stats: Pick<AgentStats, 'counter'>): DeviceFeature {
  return {
    name: 'readiness-fix',
    metrics: () => [stats.counter(READINESS_FIXES).metric()],
  };
}
