import { describe, expect, it } from 'vitest';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { buildNumber } from '../../src/machine/build-number.js';
import { agentMetrics } from '../../src/status/collect.js';
import { formatMetrics } from '../../src/status/metrics.js';
import { agentVersion, projectRoot } from '../../src/util/package.js';

const metrics = (failedDevices: Array<{ udid: string; message: string }> = []) =>
  formatMetrics(
    agentMetrics({
      stats: new AgentStats(),
      failedDevices,
      version: agentVersion,
      nodeId: 'n1',
    }),
  );

describe('device_agent_build_info', () => {
  it('names the version, the revision the Machine record carries, Node.js and the architecture', async () => {
    const line = (await metrics()).split('\n').find((l) => l.startsWith('device_agent_build_info{'));
    expect(line).toBe(
      `device_agent_build_info{version="${agentVersion}",revision="${buildNumber(projectRoot, agentVersion)}",nodeversion="${process.version}",arch="${process.arch}"} 1`,
    );
  });
});

describe("the cloud's refusals (issue 61: one series, not two)", () => {
  it('are device_agent_failed_device, one sample per refused udid; no count beside it', async () => {
    const text = await metrics([
      { udid: 'R1', message: 'no' },
      { udid: 'R2', message: 'no' },
    ]);
    expect(text.match(/^device_agent_failed_device\{udid="R\d"\} 1$/gm)).toHaveLength(2);
    expect(text).not.toMatch(/device_agent_failed_devices\b/);
  });
});
