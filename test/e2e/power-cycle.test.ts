import { describe, expect, it } from 'vitest';
import { scrapeMetrics } from './daemon-bed.js';
import { hubDaemonBed, powerCycleEnv } from './hub-daemon-bed.js';
import { reported } from '../support/reports.js';

// Power-cycle recovery in the running daemon, through the real adb server,
// the cloud double and the stand-in uhubctl (test/hub/): a phone whose adbd
// is wedged for good (a kick does not help) has its hub port power-cycled,
// through the booking gate, and comes back.

const { bed, hub } = hubDaemonBed();
const { cloud } = bed;

const actions = (text: string, action: string, result: string): number =>
  Number(new RegExp(`^device_agent_recovery_actions_total\\{action="${action}",result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
const at = (line: Record<string, unknown>): number => (typeof line.time === 'number' ? line.time : Date.parse(String(line.time)));
describe('a phone a kick does not bring back', () => {
  it('has its hub port power-cycled once the kick cooldown is over, and comes back', async () => {
    const phone = await bed.networkPhone('CYCLE001');
    hub.attach('1-1.4', 3, phone);
    const agent = bed.run(powerCycleEnv(hub, phone.serial, 'CYCLE001'));
    await cloud.waitForPut(
      reported('CYCLE001', (d) => d.status === 'AVAILABLE'),
      20_000,
    );

    // adbd wedged for good: every connection's shells hang, a new one's too.
    phone.wedge(true);
    const kick = await agent.waitForLog((l) => l.serial === phone.serial && /kicking the adb transport/.test(String(l.msg)), 60_000);
    const cycle = await agent.waitForLog((l) => l.serial === phone.serial && /power-cycling hub 1-1\.4 port 3/.test(String(l.msg)), 90_000);
    expect(at(cycle) - at(kick)).toBeGreaterThanOrEqual(9_500);
    const done = await agent.waitForLog((l) => /hub 1-1\.4 port 3 power-cycled/.test(String(l.msg)), 30_000);
    expect(String(done.output)).toMatch(/Sent power off request[\s\S]*Sent power on request/);
    expect(hub.switches.map((s) => s.power)).toEqual(['off', 'on']);
    // The booking gate was asked before the cycle.
    expect(cloud.statusRequests('CYCLE001').some((r) => r.receivedAt <= hub.switches[0]!.at)).toBe(true);

    const on = hub.switches[1]!.at;
    await cloud.waitForPut((r) => r.receivedAt > on && reported('CYCLE001', (d) => d.status === 'AVAILABLE' && !d.message)(r), 60_000);
    const text = await scrapeMetrics(agent);
    expect(actions(text, 'power_cycle', 'ok')).toBe(1);
    expect(actions(text, 'kick', 'ok')).toBe(1);
  }, 240_000);
});
