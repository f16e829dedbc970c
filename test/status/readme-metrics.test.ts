import { readFileSync } from 'node:fs';
import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';
import { describe, expect, it } from 'vitest';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { agentMetrics } from '../../src/status/collect.js';
import { deviceMetrics } from '../../src/status/device-metrics.js';
import { Exposition } from '../../src/status/metrics.js';
import { androidMetrics } from '../../src/platforms/android/metrics.js';
import { buildFeatures } from '../../src/agent/features.js';
import { featureMetrics } from '../../src/devices/feature.js';
import { hookMetrics } from '../../src/devices/feature-guard.js';
import { offListMetric, PortFailureCounts, usbMetrics } from '../../src/features/usb/metrics.js';

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
      // The features' own series (DeviceFeature.metrics), built as a test builds them (readiness's with the shipped
      // baseline, host heat's, charge control's power path checks among them; the USB layer reads nothing without a state directory).
      ...featureMetrics(buildFeatures(featureContext<AndroidControl>()), new AgentStats()).metrics(),
      // Their hooks' time and failures, by feature and hook.
      ...hookMetrics(new AgentStats()).metrics(),
      // What they count over the rows (DeviceFeature.tallies).
      ...buildFeatures(featureContext<AndroidControl>()).flatMap((f) => f.tallies?.([]) ?? []),
      ...usbMetrics(new PortFailureCounts(), [], new Map()),
      offListMetric([], ['adb', 'usbmuxd']),
      // The per-device series, with those the features add (DeviceFeature.gauges).
      ...deviceMetrics([], buildFeatures(featureContext<AndroidControl>())),
    ];
    // As the daemon serves them: through prom-client, with the process series it adds.
    const exposition = new Exposition();
    exposition.withProcessSeries();
    const text = await exposition.text(own);
    const served = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!] as const);
    expect(new Map(documented)).toEqual(new Map(served));
  });
});
