import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';
import { devicesOf, udidsOf } from '../support/reports.js';

// Self-healing in the running daemon, through the real adb server: network
// devices the agent connects and keeps connected, a wedged transport kicked
// and connected again, and every action counted in /metrics.

const bed = new DaemonBed();
const { cloud } = bed;

beforeAll(() => bed.start());
afterEach(() => bed.reset());
afterAll(() => bed.stop());

const counter = (text: string, action: string, result: string): number =>
  Number(new RegExp(`^device_agent_recovery_actions_total\\{action="${action}",result="${result}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);

describe('network devices', () => {
  it('a device named only in networkDevices is connected by the agent and reported', async () => {
    const phone = await bed.networkPhone('NET0001');
    const agent = bed.run({ DEVICE_AGENT_NETWORK_DEVICES: phone.serial, DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
    const put = await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'NET0001' && d.status === 'AVAILABLE'), 20_000);
    expect(devicesOf(put).find((d) => d.udid === 'NET0001')!.modelName).toBe('Pixel 8 Pro');
    expect(await bed.adb.state(phone.serial)).toBe('device');
    await agent.waitForLog((l) => l.address === phone.serial && /connected/.test(String(l.msg)));
    expect(counter(await scrapeMetrics(agent), 'connect', 'ok')).toBe(1);
  }, 40_000);

  it('an address that refuses: one warning, the other devices reported', async () => {
    // A port nothing listens on.
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer();
      s.listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    await bed.plug('USB0001');
    const agent = bed.run({ DEVICE_AGENT_NETWORK_DEVICES: `127.0.0.1:${closed}`, DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
    await cloud.waitForPut((r) => udidsOf(r).includes('USB0001'), 15_000);
    // The warning, in the real adb server's words; the backoff between the attempts
    // (2, 4, 8 s ... 5 min) is recovery's decision, shown on virtual time in
    // test/features/recovery/recovery.test.ts.
    const warning = await agent.waitForLog((l) => l.address === `127.0.0.1:${closed}` && l.level === 'warn', 15_000);
    expect(String(warning.msg)).toMatch(/could not be connected .*keeps trying/);
    expect(agent.logs().filter((l) => l.address === `127.0.0.1:${closed}` && l.level === 'warn')).toHaveLength(1);
    expect(counter(await scrapeMetrics(agent), 'connect', 'failed')).toBeGreaterThanOrEqual(1);
  }, 40_000);
});

describe('a wedged transport', () => {
  it('is kicked after its inventories miss their deadline, connected again and reported; the other devices are not touched', async () => {
    const wedging = await bed.networkPhone('WEDGE001');
    const other = await bed.networkPhone('NET0002');
    const usb = await bed.plug('USB0002');
    const agent = bed.run({
      DEVICE_AGENT_NETWORK_DEVICES: `${wedging.serial},${other.serial}`,
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '2',
      DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
    });
    await cloud.waitForPut((r) => ['WEDGE001', 'NET0002', 'USB0002'].every((u) => devicesOf(r).some((d) => d.udid === u && d.status === 'AVAILABLE')), 20_000);
    const accepted = { wedging: wedging.connectionsAccepted, other: other.connectionsAccepted, usb: usb.connectionsAccepted };

    // A phone someone connected by hand wedges too: adb would forget it if kicked, so it is left alone.
    const byHand = await bed.plug('HAND0001');
    await cloud.waitForPut((r) => devicesOf(r).some((d) => d.udid === 'HAND0001' && d.status === 'AVAILABLE'), 20_000);
    byHand.wedgeTransport();
    wedging.wedgeTransport();
    const kick = await agent.waitForLog((l) => l.serial === wedging.serial && /kicking the adb transport/.test(String(l.msg)), 60_000);
    expect(kick.reason).toMatch(/missed its deadline 2 times in a row/);
    const kickedAt = Date.now();
    // Connected again (a new connection, not wedged) and inventoried afresh.
    await cloud.waitForPut((r) => r.receivedAt > kickedAt && devicesOf(r).some((d) => d.udid === 'WEDGE001' && d.status === 'AVAILABLE' && !d.message), 30_000);
    expect(wedging.connectionsAccepted).toBeGreaterThan(accepted.wedging);
    expect(other.connectionsAccepted).toBe(accepted.other);
    expect(usb.connectionsAccepted).toBe(accepted.usb);

    const text = await scrapeMetrics(agent);
    expect(counter(text, 'kick', 'ok')).toBe(1);
    expect(counter(text, 'connect', 'ok')).toBe(3);
    expect(agent.logs().filter((l) => /kicking the adb transport/.test(String(l.msg)))).toHaveLength(1);
    expect(await bed.adb.state(byHand.serial)).toBe('device');
    const lastPut = cloud.putRequests().at(-1)!;
    expect(devicesOf(lastPut).find((d) => d.udid === 'HAND0001')).toMatchObject({ status: 'UNAVAILABLE' });
  }, 120_000);
});
