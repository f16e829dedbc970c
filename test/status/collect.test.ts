import { describe, expect, it } from 'vitest';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { buildNumber } from '../../src/machine/build-number.js';
import { agentMetrics } from '../../src/status/collect.js';
import { formatMetrics } from '../../src/status/metrics.js';
import { agentVersion, projectRoot } from '../../src/util/package.js';

const metrics = () =>
  formatMetrics(
    agentMetrics({
      stats: new AgentStats(),
      failedDevices: [],
      version: agentVersion,
      nodeId: 'n1',
    }),
  );

describe('device_agent_build_info', () => {
  it('names the version, the revision the Machine record carries, Node.js and the architecture', () => {
    const line = metrics()
      .split('\n')
      .find((l) => l.startsWith('device_agent_build_info{'));
    expect(line).toBe(
      `device_agent_build_info{version="${agentVersion}",revision="${buildNumber(projectRoot, agentVersion)}",nodeversion="${process.version}",arch="${process.arch}"} 1`,
    );
  });
});
