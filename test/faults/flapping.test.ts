import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { SimFarm } from '../sim/farm.js';
import { sleep } from '../support/wait.js';

// 200 devices dropping their connections again and again (a bad USB hub):
// the daemon keeps running, gathers the changes into few reports rather than
// one per flap, and once things settle its next report has all 200 in full.

const N = 200;
const farm = new SimFarm({ count: N, profile: 'pixel-8-pro', serialPrefix: 'FLAP', readyTimeoutMs: 120_000 });
const cloud = new CloudDouble();
let agent: AgentProcess;

beforeAll(async () => {
  await farm.start();
  await cloud.start();
  agent = startAgent(['run'], daemonEnv(farm.env, cloud));
}, 180_000);

afterAll(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  await farm.stop();
  await cloud.stop();
}, 60_000);

type Device = { udid: string; state: string; modelName?: string };
const devicesOf = (r: RecordedRequest) => (r.body as { devices: Device[] } | undefined)?.devices ?? [];
const allReady = (r: RecordedRequest) => {
  const ready = new Set(
    devicesOf(r)
      .filter((d) => d.state === 'device' && d.modelName !== undefined)
      .map((d) => d.udid),
  );
  return farm.serialNumbers.every((s) => ready.has(s));
};
describe('faults: flapping', () => {
  it(`${N} devices flapping: few reports, the agent keeps running, then all ${N} reported in full`, async () => {
    await cloud.waitForPut((r) => r.answer?.status === 200 && allReady(r), 90_000);
    const before = cloud.putRequests().length;
    const flapsFrom = Date.now();
    const waves = 4;
    for (let wave = 0; wave < waves; wave++) {
      for (const device of farm.devices) device.disconnect();
      await sleep(400);
    }
    // adb reconnects `adb connect`ed devices by itself; wait until it has.
    await farm.server.waitForStates(new Map(farm.serials.map((s) => [s, 'device'])), 90_000);
    // Then the next reports bring every device back in full (an inventory that takes long brings its own report when it answers).
    const last = await cloud.waitForPut((r) => r.receivedAt > flapsFrom && r.answer?.status === 200 && allReady(r), 90_000);
    expect(last.receivedAt).toBeGreaterThan(flapsFrom);
    const reports = cloud.putRequests().filter((r) => r.receivedAt <= last.receivedAt).length - before;
    // 200 devices x 4 waves is 800 disconnections and as many reconnections:
    // the debounce turns them into a handful of reports (2 when measured).
    expect(reports).toBeGreaterThanOrEqual(1);
    expect(reports).toBeLessThanOrEqual(10);
    expect(agent.child.exitCode).toBeNull();
    // 1,600 device events, and the log says so in a bounded number of lines
    // (src/log/limited.ts): ten, then a summary with the count a minute on.
    const changed = agent.logs().filter((l) => l.msg === 'device changed');
    expect(changed.length).toBeGreaterThanOrEqual(1);
    expect(changed.length).toBeLessThanOrEqual(11);
  }, 300_000);
});
