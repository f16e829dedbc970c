import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { agentMetrics } from '../../src/status/collect.js';
import { deviceMetrics } from '../../src/status/device-metrics.js';
import { Exposition } from '../../src/status/metrics.js';
import { androidMetrics } from '../../src/platforms/android/metrics.js';
import { readinessMetrics } from '../../src/features/readiness/metrics.js';
import { buildFeatures } from '../../src/agent/features.js';
import { featureMetrics } from '../../src/devices/feature.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { offListMetric, PortFailureCounts, usbMetrics } from '../../src/features/usb/metrics.js';
import { PowerPaths } from '../../src/actions/charge/power-paths.js';
import { hostHeatFeature } from '../../src/health/host-heat-feature.js';
import { shippedHealth } from '../health/defaults.js';

// The metrics reference is what a dashboard is built from: every series the
// agent serves is in it, and it names none the agent does not serve.

const section = readFileSync(new URL('../../docs/reference/metrics.md', import.meta.url), 'utf8');
const documented = [...section.matchAll(/^\| `([a-z0-9_]+)` \| (gauge|counter|histogram) \|/gm)].map((m) => [m[1]!, m[2]!] as const);

describe('docs/reference/metrics.md', () => {
  it('lists every metric the agent serves, with its type, and no other: its own and the process series', async () => {
    const own = [
      ...agentMetrics({ stats: new AgentStats(), failedDevices: [], version: 'x', nodeId: 'y' }),
      // The platforms' own series (DeviceSource.metrics): only Android has some.
      ...androidMetrics({
        states: [],
        trackerAlive: true,
        roundTripMs: undefined,
        probes: { shellSessions: 0, bytesRead: 0 } as never,
        duplicateSerials: new Map(),
        sharedUdids: new Map(),
      }),
      // The features' own series (DeviceFeature.metrics).
      ...featureMetrics(buildFeatures(new DeviceRegistry())).metrics(),
      ...readinessMetrics([], [], { changes: new Map(), notReady: new Map(), builds: 0 }),
      ...usbMetrics(new PortFailureCounts(), [], new Map()),
      offListMetric([], ['adb', 'usbmuxd']),
      // Several phones hot together (with the daemon's health settings).
      ...(hostHeatFeature(shippedHealth, undefined, () => 0).metrics?.() ?? []),
      // Charge control's power path checks (with the daemon's state directory).
      ...new PowerPaths().metrics(),
      // The per-device series, with those the features add (DeviceFeature.gauges).
      ...deviceMetrics([], buildFeatures(new DeviceRegistry())),
    ];
    // As the daemon serves them: through prom-client, with the process series it adds.
    const exposition = new Exposition();
    exposition.withProcessSeries();
    const text = await exposition.text(own);
    const served = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const);
    expect(new Map(documented)).toEqual(new Map(served));
  });
});
