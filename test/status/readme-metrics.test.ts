import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AgentStats } from '../../src/status/stats.js';
import { agentMetrics } from '../../src/status/collect.js';
import { deviceMetrics } from '../../src/status/device-metrics.js';

// The README's metrics table is what a dashboard is built from: every series
// the agent serves is in it, and it names none the agent does not serve.

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const section = readme.slice(readme.indexOf('### Metrics (`/metrics`'), readme.indexOf('### USB topology'));
const documented = [...section.matchAll(/^\| `([a-z_]+)` \| (gauge|counter) \|/gm)].map((m) => [m[1]!, m[2]!] as const);

describe('README metrics table', () => {
  it('lists every metric the agent serves, with its type, and no other', () => {
    const served = [
      ...agentMetrics({ stats: new AgentStats(), trackerAlive: true, failedDevices: [], probes: { shellSessions: 0, bytesRead: 0 } as never, version: 'x', nodeId: 'y' }),
      ...deviceMetrics([]),
    ].map((m) => [m.name, m.type] as const);
    expect(new Map(documented)).toEqual(new Map(served));
  });
});
