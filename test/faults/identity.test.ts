import { describe, expect, it } from 'vitest';
import { CloudDouble } from '../cloud-double/cloud-double.js';
import { SimFarm } from '../sim/farm.js';
import { agentOnFarm } from '../support/farm-agent.js';

// Two low-cost phones that both say ro.serialno 0123456789ABCDEF, each on its
// own adb transport (over TCP here, as the simulator connects), booted at
// different times: the cloud can be told of one, and the other must not
// vanish silently. A third, ordinary phone is reported as usual.

const SAME = '0123456789ABCDEF';
const farm = new SimFarm({
  devices: [
    { profile: 'xiaomi-poco-f6', serial: SAME, uptimeSeconds: 3_600 },
    { profile: 'xiaomi-poco-f6', serial: SAME, uptimeSeconds: 86_400 },
    { profile: 'pixel-8-pro', serial: 'IDENT0003' },
  ],
});
const cloud = new CloudDouble();
const run = agentOnFarm(farm, cloud, { DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' }, { startMs: 120_000 });

describe('faults: conflicting identities', () => {
  it('two phones giving one udid: one is reported, the other is named in one warning and a metric', async () => {
    const { agent, statusUrl } = run;
    const put = await cloud.waitForPut((r) => r.answer?.status === 200 && (r.body as { devices: unknown[] }).devices.length >= 2, 60_000);
    const udids = (put.body as { devices: Array<{ udid: string }> }).devices.map((d) => d.udid).sort();
    expect(udids).toEqual([SAME, 'IDENT0003']);
    const warning = await agent.waitForLog((l) => typeof l.msg === 'string' && l.msg.includes(`give the udid ${SAME}`));
    expect(warning.level).toBe('warn');
    expect(warning.serials).toHaveLength(2);
    const metrics = await (await fetch(`${statusUrl}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^device_agent_shared_udid_devices\\{udid="${SAME}"\\} 2$`, 'm'));
    // Said once while it lasts, not at every report: two more full reports (SIGHUP; the schedule is yearly here).
    for (let i = 0; i < 2; i++) {
      const mark = cloud.putRequests().length;
      agent.child.kill('SIGHUP');
      await cloud.waitForPut((r) => cloud.putRequests().indexOf(r) >= mark && r.answer?.status === 200, 30_000);
    }
    expect(agent.logs().filter((l) => typeof l.msg === 'string' && l.msg.includes(`give the udid ${SAME}`))).toHaveLength(1);
  }, 120_000);
});
