import { ACTIONS_REFUSED } from '../../src/actions/trust.js';
import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';
import { describe, expect, it } from 'vitest';
import { buildFeatures } from '../../src/agent/features.js';
import { RECOVERY_ACTIONS } from '../../src/features/recovery/recovery.js';
import { RECOVERY_HELD } from '../../src/features/recovery/holds.js';
import { PROTECTION_PROBLEMS, PROTECTION_WRITES } from '../../src/features/samsung/protection.js';
import { featureMetrics } from '../../src/devices/feature.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { counterKey } from '../../src/stats/counter.js';
import { formatMetrics } from '../../src/status/metrics.js';
import { QUARANTINES } from '../../src/features/quarantine/quarantine.js';

describe('AgentStats.counter', () => {
  it('hands the same counter to whoever names the key, counting by label values in their first order', () => {
    const stats = new AgentStats();
    const key = counterKey('x_total', 'X.', ['action', 'result']);
    stats.counter(key).add('kick', 'ok');
    stats.counter(key).add('kick', 'ok');
    stats.counter(key).add('connect', 'failed');
    expect(stats.counter(key).get('kick', 'ok')).toBe(2);
    expect(stats.counter(key).get('kick', 'failed')).toBe(0);
    expect(stats.counter(key).metric().samples).toEqual([
      { labels: { action: 'kick', result: 'ok' }, value: 2 },
      { labels: { action: 'connect', result: 'failed' }, value: 1 },
    ]);
  });

  it("serves the label values its key knows from 0, so that Prometheus's increase() counts the first (quarantines by layer)", () => {
    const stats = new AgentStats();
    expect(stats.counter(QUARANTINES).metric().samples).toEqual(['phone', 'port', 'readiness', 'cloud'].map((layer) => ({ labels: { layer }, value: 0 })));
    stats.counter(QUARANTINES).add('port');
    expect(stats.counter(QUARANTINES).get('port')).toBe(1);
    expect(stats.counter(QUARANTINES).metric().samples).toHaveLength(4);
  });
});

// The series recovery, Samsung protection and identity trust count moved
// from AgentStats's maps to the features' metrics() hooks: /metrics prints
// them as before, name, HELP, TYPE and labels alike (the lines below are
// what status/collect.ts printed for the same counts).
describe("the features' counters in /metrics", () => {
  it('print the series status/collect.ts printed before', async () => {
    const stats = new AgentStats();
    stats.counter(RECOVERY_ACTIONS).add('kick', 'ok');
    stats.counter(RECOVERY_ACTIONS).add('connect', 'failed');
    stats.counter(RECOVERY_HELD).add('power_cycle', 'booked');
    stats.counter(ACTIONS_REFUSED).add('charge_pause');
    stats.counter(PROTECTION_WRITES).add('not_taken');
    stats.counter(PROTECTION_PROBLEMS).add('not_honoured');
    const text = await formatMetrics(featureMetrics(buildFeatures(featureContext<AndroidControl>({ stats })), stats).metrics());
    expect(text.split('\n')).toEqual(
      expect.arrayContaining([
        '# HELP device_agent_recovery_actions_total Self-healing actions (reconnect_offline, kick, connect, power_cycle) by result (ok, failed).',
        '# TYPE device_agent_recovery_actions_total counter',
        'device_agent_recovery_actions_total{action="kick",result="ok"} 1',
        'device_agent_recovery_actions_total{action="connect",result="failed"} 1',
        '# HELP device_agent_recovery_held_total Self-healing actions (reconnect_offline, kick, power_cycle) held back by the booking gate, by reason (booked, unknown: the cloud could not say); once per cloud answer.',
        '# TYPE device_agent_recovery_held_total counter',
        'device_agent_recovery_held_total{action="power_cycle",reason="booked"} 1',
        '# HELP device_agent_actions_refused_total Host actions (kick, power_cycle, charge_pause) not taken because the identity of the device is in conflict or its USB path is not behind its hub port; once per device and reason.',
        '# TYPE device_agent_actions_refused_total counter',
        'device_agent_actions_refused_total{action="charge_pause"} 1',
        "# HELP device_agent_battery_protection_writes_total Writes of Samsung's protect_battery (charge.ways = samsung), by what the read-back said (taken, not_taken).",
        '# TYPE device_agent_battery_protection_writes_total counter',
        'device_agent_battery_protection_writes_total{result="not_taken"} 1',
        '# HELP device_agent_battery_protection_problems_total Samsung battery protection problems found, each counted when it starts: not_taken (a write did not read back as 1), not_honoured (reads 1, charges past the cap).',
        '# TYPE device_agent_battery_protection_problems_total counter',
        'device_agent_battery_protection_problems_total{problem="not_honoured"} 1',
      ]),
    );
  });
});
