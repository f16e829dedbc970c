import { readFileSync } from 'node:fs';
import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';
import { describe, expect, it } from 'vitest';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { agentMetrics } from '../../src/status/collect.js';
import { deviceMetrics } from '../../src/status/device-metrics.js';
import { androidMetrics } from '../../src/platforms/android/metrics.js';
import { readinessMetrics } from '../../src/features/readiness/metrics.js';
import { buildFeatures } from '../../src/agent/features.js';
import { featureMetrics } from '../../src/devices/feature.js';
import { offListMetric, PortFailureCounts, usbMetrics } from '../../src/features/usb/metrics.js';
import { PowerPaths } from '../../src/features/charge/power-paths.js';
import { hostHeatFeature } from '../../src/features/host-heat/feature.js';

// The metrics reference is what a dashboard is built from: every series the
// agent serves is in it, and it names none the agent does not serve.

const section = readFileSync(new URL('../../docs/reference/metrics.md', import.meta.url), 'utf8');
const documented = [...section.matchAll(/^\| `([a-z_]+)` \| (gauge|counter) \|/gm)].map((m) => [m[1]!, m[2]!] as const);

describe('docs/reference/metrics.md', () => {
  it('lists every metric the agent serves, with its type, and no other', () => {
    const served = [
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
      ...featureMetrics(buildFeatures(featureContext<AndroidControl>())).metrics(),
      ...readinessMetrics([], [], { changes: new Map(), notReady: new Map(), builds: 0 }),
      ...usbMetrics(new PortFailureCounts(), [], new Map()),
      offListMetric([], ['adb', 'usbmuxd']),
      // Several phones hot together (with the daemon's health settings).
      ...(hostHeatFeature(featureContext()).metrics?.() ?? []),
      // Charge control's power path checks (with the daemon's state directory).
      ...new PowerPaths().metrics(),
      // The per-device series, with those the features add (DeviceFeature.gauges).
      ...deviceMetrics([], [], buildFeatures(featureContext<AndroidControl>())),
    ].map((m) => [m.name, m.type] as const);
    expect(new Map(documented)).toEqual(new Map(served));
  });
});
