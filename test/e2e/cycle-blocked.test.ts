import { describe, expect, it } from 'vitest';
import { scrapeMetrics } from './daemon-bed.js';
import { hubDaemonBed, powerCycleEnv } from './hub-daemon-bed.js';
import { devicesOf, reported } from '../support/reports.js';

// A power cycle that cannot work (issue 34, finding 4): hubPorts names a hub
// the stand-in uhubctl does not find ("No compatible devices detected at
// location 1-1.4", as the real tool says), through the real adb server and
// the cloud double: the tool's words become one line saying why, and the
// phone's message asks for a person. That the failed cycle is not tried again
// is shown over hours of virtual time in
// test/features/recovery/recovery.test.ts.

const { bed, hub } = hubDaemonBed();
const { cloud } = bed;

const actions = (text: string, action: string, result: string): number =>
  Number(new RegExp(`^device_agent_recovery_actions_total\\{action="${action}",result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

describe('a power cycle on a hub the tool does not find', () => {
  it('is tried, said once in its own words, and the phone says a person is needed', async () => {
    const phone = await bed.networkPhone('NOHUB001');
    // The phone is on no hub the stand-in knows: 1-1.4 is not laid out.
    const agent = bed.run(powerCycleEnv(hub, phone.serial, 'NOHUB001'));
    await cloud.waitForPut(
      reported('NOHUB001', (d) => d.status === 'AVAILABLE'),
      20_000,
    );
    phone.wedge(true);
    const tried = (l: Record<string, unknown>): boolean => /^power-cycling hub 1-1\.4 port 3 behind \S+: still wedged/.test(String(l.msg));
    await agent.waitForLog(tried, 90_000);
    const blocked = await agent.waitForLog((l) => /cannot work/.test(String(l.msg)), 30_000);
    expect(String(blocked.msg)).toMatch(/No compatible devices detected at location 1-1\.4.*not tried again until the settings change/);
    // The phone's message asks for a person, naming what was tried; that the
    // cycle is not tried again, over hours, is recovery's decision, shown on
    // virtual time (test/features/recovery/recovery.test.ts).
    const put = await cloud.waitForPut(
      reported('NOHUB001', (d) => /needs a person/.test(d.message ?? '')),
      30_000,
    );
    expect(devicesOf(put).find((d) => d.udid === 'NOHUB001')?.message).toMatch(
      /needs a person: power-cycling hub 1-1\.4 port 3 cannot work \(the hub tool finds no hub at that location/,
    );
    expect(agent.logs().filter(tried)).toHaveLength(1);
    expect(agent.logs().filter((l) => /cannot work|needs a person/.test(String(l.msg)))).toHaveLength(1);
    const text = await scrapeMetrics(agent);
    expect(actions(text, 'power_cycle', 'failed')).toBe(1);
    expect(actions(text, 'power_cycle', 'ok')).toBe(0);
  }, 300_000);
});
