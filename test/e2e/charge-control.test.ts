import { describe, expect, it } from 'vitest';
import { scrapeMetrics } from './daemon-bed.js';
import { hubDaemonBed, standIn } from './hub-daemon-bed.js';
import { devicesOf, reported } from '../support/reports.js';

// Charge control through the hub port in the running daemon: the real adb
// server, a simulated Samsung whose battery level the test sets, the cloud
// double answering the booking status, and the stand-in uhubctl switching
// the phone's port on the hub bed (which pulls and replugs its cable). A
// booking during a pause ending it at once is charge control's decision,
// shown on virtual time in test/features/charge/charge.test.ts.

// A profile with a dumpsys battery recording, so that the level can be set.
const { bed, hub } = hubDaemonBed('samsung-galaxy-s25-plus');
const { cloud } = bed;

const gauge = (text: string, udid: string): number | undefined => {
  const m = new RegExp(`^device_agent_device_charge_paused\\{udid="${udid}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};
const at = (line: Record<string, unknown>): number => (typeof line.time === 'number' ? line.time : Date.parse(String(line.time)));
const PAUSED = /charge paused to spare the battery: hub 1-1\.4 port 3 switched off at 85 %; on again by \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ at the latest/;

/** A phone at 85 % on hub 1-1.4 port 3, not booked, and the agent run with its charge control: the switches are this test's. */
async function phoneAtHighMark(serial: string, maxPauseSeconds: number) {
  const phone = await bed.networkPhone(serial);
  await phone.setBatteryLevel(85);
  hub.attach('1-1.4', 3, phone);
  cloud.setBooked(serial, false);
  const from = hub.switches.length;
  const agent = bed.run({
    ...hub.env,
    DEVICE_AGENT_NETWORK_DEVICES: phone.serial,
    DEVICE_AGENT_HUB_PORTS: `${serial}=1-1.4:3`,
    DEVICE_AGENT_CHARGE_WAYS: `${serial}=uhubctl`,
    DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS: String(maxPauseSeconds),
    DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: standIn,
    DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
    DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
  });
  return { phone, agent, switches: () => hub.switches.slice(from) };
}

describe('charge control through the hub port', () => {
  it('switches the port of a phone at its high mark off, reports it UNAVAILABLE with why, never UNPLUGGED, and on again at the longest pause', async () => {
    const { phone, agent, switches } = await phoneAtHighMark('CHARGE01', 20);

    const paused = await cloud.waitForPut(
      reported('CHARGE01', (d) => d.status === 'UNAVAILABLE' && PAUSED.test(d.message ?? '')),
      40_000,
    );
    expect(switches().map((s) => s.power)).toEqual(['off']);
    const off = switches()[0]!.at;
    // The cloud said "not booked" just before.
    expect(cloud.statusRequests('CHARGE01').some((r) => r.receivedAt <= off && r.receivedAt >= off - 5_000)).toBe(true);
    // Reported with its last inventory while it is off adb.
    expect(devicesOf(paused).find((d) => d.udid === 'CHARGE01')!.modelName).toBe('SM-S936B');
    expect(gauge(await scrapeMetrics(agent), 'CHARGE01')).toBe(1);

    // A USB phone whose port goes off leaves adb's list at once; adb keeps a
    // phone over TCP listed, offline, while it retries. Taken off the list
    // here as USB would: the agent then has no record of it, and only its
    // pause keeps it from going out as UNPLUGGED.
    await bed.adb.disconnect(phone.port);
    const gone = await agent.waitForLog((l) => l.msg === 'device changed' && l.serial === phone.serial && l.to === 'unplugged', 15_000);
    await cloud.waitForPut(
      (r) => r.receivedAt > at(gone) && reported('CHARGE01', (d) => d.status === 'UNAVAILABLE' && PAUSED.test(d.message ?? ''))(r),
      15_000,
    );
    expect(cloud.putRequests().some(reported('CHARGE01', (d) => d.status === 'UNPLUGGED'))).toBe(false);

    // Drained while off: back on power it is below the high mark and stays on.
    await phone.setBatteryLevel(60);
    await agent.waitForLog((l) => /hub 1-1\.4 port 3 switched on/.test(String(l.msg)), 70_000);
    expect(switches().map((s) => s.power)).toEqual(['off', 'on']);
    const on = switches()[1]!.at;
    expect(on - off).toBeGreaterThanOrEqual(19_000);
    // By the longest pause and a look of charge control's: on virtual time, test/features/charge/charge.property.test.ts.
    // Here an end, not a hang: 3 times what it takes alone (about 21 s).
    expect(on - off).toBeLessThan(63_000);
    expect(agent.logs().some((l) => /longest pause \(charge.maxPauseSeconds\) is up/.test(String(l.msg)))).toBe(true);
    // A network device off adb on purpose is not connected again while its port is off: that would only fail and warn.
    expect(agent.logs().filter((l) => at(l) < on && /could not be connected/.test(String(l.msg)))).toEqual([]);

    await cloud.waitForPut((r) => r.receivedAt > on && reported('CHARGE01', (d) => d.status === 'AVAILABLE' && !d.message)(r), 60_000);
    expect(cloud.putRequests().some(reported('CHARGE01', (d) => d.status === 'UNPLUGGED'))).toBe(false);
    const text = await scrapeMetrics(agent);
    expect(gauge(text, 'CHARGE01')).toBe(0);
    expect(text).toMatch(/^device_agent_charge_pause_ends_total\{why="max_time"\} 1$/m);
  }, 180_000);
});
