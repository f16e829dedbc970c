// Readiness's fix-it action as the report sees it: its counter on /metrics;
// and the action (fix.ts), built from the parts every action shares.
import type { DeviceFeature } from '../../devices/feature.js';
import type { SettingsWriter } from '../../devices/control.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import type { ActionParts } from '../../actions/parts.js';
import { READINESS_FIXES } from './counts.js';
import { ReadinessFix } from './fix.js';

export function readinessFixFeature(stats: Pick<AgentStats, 'counter'>): DeviceFeature<ActionParts<SettingsWriter>> {
  return {
    name: 'readiness-fix',
    // readiness.fix, off by default: only while the cloud says the phone is not booked.
    action: {
      actsOn: 'settings',
      build: (p) =>
        new ReadinessFix({
          runner: p.runner,
          phones: p.phones,
          registry: p.registry,
          settings: p.settings,
          gate: p.gate,
          booking: p.booking,
          stats: p.stats,
          logger: p.logger,
          clock: p.clock,
        }),
    },
    metrics: () => [stats.counter(READINESS_FIXES).metric()],
  };
}
