import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CloudDouble, type RecordedRequest } from '../cloud-double/cloud-double.js';
import { type AgentProcess, daemonEnv, startAgent } from '../e2e/agent-process.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';

// The daemon against a misbehaving cloud: each fault lasts a while, then is
// cleared. Whatever it was, the agent keeps running, says in its log what
// happened, and the next good report carries every device. (The client's own
// retry rules are tested in test/cloud; this is the whole process.)

const adb = new AdbServer();
const cloud = new CloudDouble();
const serials = ['CLFT0001', 'CLFT0002', 'CLFT0003'];
const devices = serials.map((serial) => new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), serial) }));
let agent: AgentProcess | undefined;

beforeAll(async () => {
  await adb.start();
  await cloud.start();
  for (const device of devices) await adb.connect(await device.start());
  await Promise.all(devices.map((d) => adb.waitForState(d.serial, 'device', 20_000)));
});

afterEach(async () => {
  await agent?.stop('SIGKILL').catch(() => undefined);
  agent = undefined;
  cloud.resetFaults();
  cloud.clearRequests();
});

afterAll(async () => {
  await adb.stop();
  await cloud.stop();
  await Promise.all(devices.map((d) => d.stop()));
});

type Body = { devices: Array<{ udid: string; state: string; modelName?: string }> };
const fullReport = (r: RecordedRequest) => {
  const body = r.body as Body | undefined;
  const ready = (body?.devices ?? []).filter((d) => d.state === 'device' && d.modelName === 'Pixel 8 Pro');
  return (
    ready
      .map((d) => d.udid)
      .sort()
      .join() === serials.join()
  );
};
const message = (l: Record<string, unknown>) => `${String(l.msg)} ${String(l.err ?? '')} ${String(l.reason ?? '')}`;

interface FaultCase {
  name: string;
  /** Starts the fault; it stays until cleared unless it is a burst. */
  apply: () => void;
  /** A log line that says what happened. */
  logged: RegExp;
  /** How long the fault stays before it is cleared. */
  forMs: number;
  env?: Record<string, string>;
  /** Most PUTs the agent may send while the fault lasts (no retry storm). */
  maxPutsDuringFault?: number;
  /** More to check in the log once the fault is cleared. */
  check?: (logs: Array<Record<string, unknown>>) => void;
}

const cases: FaultCase[] = [
  { name: 'cloud down (503 on every request)', apply: () => cloud.failNext({ status: 503, times: Infinity }), logged: /HTTP 503/, forMs: 4000 },
  {
    name: 'slow beyond the request timeout',
    apply: () => cloud.setDelay(4000),
    logged: /no answer within 1000 ms/,
    forMs: 4000,
    env: { DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS: '1' },
  },
  { name: 'connection resets', apply: () => cloud.resetConnectionNext(Infinity), logged: /ECONNRESET|socket hang up|reset/i, forMs: 4000 },
  { name: 'a burst of 5xx', apply: () => cloud.failNext({ status: 502, times: 2 }).failNext({ status: 500, times: 2 }), logged: /HTTP 50[02]/, forMs: 3000 },
  {
    name: '429 with Retry-After',
    apply: () => cloud.failNext({ status: 429, retryAfter: 1, times: Infinity }),
    logged: /HTTP 429/,
    forMs: 4000,
    // The wait the cloud asked for is a time before which no report goes, the schedule's included.
    check: (logs) => {
      expect(logs.some((l) => l.retryAfterMs === 1000 && String(l.msg).includes('Retry-After'))).toBe(true);
      const puts = cloud.putRequests();
      for (let i = 1; i < puts.length; i++)
        if (puts[i - 1]!.answer?.status === 429) expect(puts[i]!.receivedAt - puts[i - 1]!.receivedAt).toBeGreaterThanOrEqual(1000);
    },
  },
  { name: 'HTML instead of JSON', apply: () => cloud.answerHtmlNext(Infinity), logged: /unexpected answer.*text\/html/, forMs: 4000 },
  {
    name: '401 (credentials rejected)',
    apply: () => cloud.failNext({ status: 401, times: Infinity }),
    logged: /401 Unauthorized/,
    forMs: 4000,
    // Never retried: one attempt per scheduled report (every 2 s) at most.
    maxPutsDuringFault: 4,
  },
];

describe('faults: cloud', () => {
  it.each(cases)('$name: keeps running, logs it, and the next good report carries every device', async (c) => {
    c.apply();
    const faultFrom = Date.now();
    agent = startAgent(
      ['run'],
      daemonEnv(adb.env, cloud, {
        // A short schedule bounds each retry chain (it never outlives the next report).
        DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
        ...c.env,
      }),
    );
    const said = await agent.waitForLog((l) => c.logged.test(message(l)), 30_000);
    expect(['warn', 'error']).toContain(said.level);
    const remaining = c.forMs - (Date.now() - faultFrom);
    if (remaining > 0) await new Promise((r) => setTimeout(r, remaining));
    const putsDuringFault = cloud.putRequests().length;
    if (c.maxPutsDuringFault !== undefined) expect(putsDuringFault).toBeLessThanOrEqual(c.maxPutsDuringFault);
    expect(putsDuringFault).toBeGreaterThan(0);

    cloud.resetFaults();
    const clearedAt = Date.now();
    const good = await cloud.waitForPut((r) => r.receivedAt >= clearedAt && r.answer?.status === 200 && r.answer.fault === undefined && fullReport(r), 20_000);
    expect(good).toBeDefined();
    expect(agent.child.exitCode).toBeNull();
    await agent.waitForLog((l) => l.msg === 'report delivered' && Number(l.devices) === serials.length, 5000);
    c.check?.(agent.logs());
    expect(agent.stdout + agent.stderr).not.toContain(cloud.apiKey);
  });
});
