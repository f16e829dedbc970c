// The daemon as a process against a simulated farm and the cloud double, for
// a whole test file or describe block: the setup the fault and soak tests
// share. The tests look at what the daemon did, not at how it ends, so it is
// stopped with SIGKILL.
import { afterAll, beforeAll } from 'vitest';
import type { CloudDouble } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import type { SimFarm } from '../sim/farm.js';

export interface FarmAgent {
  /** The running daemon (from beforeAll on). */
  readonly agent: AgentProcess;
  /** http://host:port of its status endpoint, where `env` turned it on. */
  readonly statusUrl: string;
}

/**
 * Registers beforeAll and afterAll: the farm and the cloud double started,
 * then the daemon run with `env` on top of daemonEnv's; with
 * DEVICE_AGENT_STATUS_LISTEN set, its status endpoint waited for. Afterwards
 * all three stopped.
 */
export function agentOnFarm(
  farm: SimFarm,
  cloud: CloudDouble,
  env: Record<string, string | undefined> = {},
  { startMs = 60_000, stopMs = 60_000 }: { startMs?: number; stopMs?: number } = {},
): FarmAgent {
  let agent: AgentProcess | undefined;
  let statusUrl = '';
  beforeAll(async () => {
    await farm.start();
    await cloud.start();
    agent = startAgent(['run'], daemonEnv(farm.env, cloud, env));
    if (env.DEVICE_AGENT_STATUS_LISTEN !== undefined && env.DEVICE_AGENT_STATUS_LISTEN !== 'off') {
      const line = await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 30_000);
      statusUrl = `http://${String(line.listen)}`;
    }
  }, startMs);
  afterAll(async () => {
    await agent?.stop('SIGKILL').catch(() => undefined);
    await farm.stop();
    await cloud.stop();
  }, stopMs);
  return {
    get agent() {
      if (!agent) throw new Error('the daemon is not started yet: read agent in a test or a later hook');
      return agent;
    },
    get statusUrl() {
      return statusUrl;
    },
  };
}
