import { describe, expect, it } from 'vitest';
import { hubDaemonBed, standIn } from './hub-daemon-bed.js';
import { reported } from '../support/reports.js';

// Issue 42: two network phones; the operator maps the first by its adb
// serial (hubPorts and charge.ways, a documented form); the second gives
// that serial as its udid (ro.serialno) and is at 100 %. Before the fix,
// within about 5 s the agent switched the first phone's port off
// (`uhubctl -l 1-1.4 -p 4 -a off`) on the second's reading, for up to the
// longest pause, and named no conflict: the look-ups tried the udid first
// against keys that may be serials.

const { bed, hub } = hubDaemonBed('samsung-galaxy-s25-plus');
const { cloud } = bed;
const at = (line: Record<string, unknown>): number => (typeof line.time === 'number' ? line.time : Date.parse(String(line.time)));

describe("a phone whose udid is another phone's adb serial, that serial mapped to a hub port", () => {
  it("switches neither phone's port, and says the key names two phones once", async () => {
    const first = await bed.networkPhone('FIRST001', { uptimeSeconds: 3_600 });
    const second = await bed.networkPhone(first.serial, { uptimeSeconds: 86_400 });
    await first.setBatteryLevel(50);
    await second.setBatteryLevel(100);
    hub.attach('1-1.4', 4, first);
    cloud.setBooked('FIRST001', false);
    cloud.setBooked(first.serial, false);
    const from = hub.switches.length;
    const agent = bed.run({
      ...hub.env,
      DEVICE_AGENT_NETWORK_DEVICES: `${first.serial},${second.serial}`,
      DEVICE_AGENT_HUB_PORTS: `${first.serial}=1-1.4:4`,
      DEVICE_AGENT_CHARGE_WAYS: `${first.serial}=uhubctl`,
      DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS: '7200',
      DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: standIn,
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    });

    // The second phone is read and due a pause: refused, with the key's conflict as the reason.
    const refused = await agent.waitForLog((l) => /^not pausing the charge of /.test(String(l.msg)), 40_000);
    expect(refused.serial).toBe(second.serial);
    expect(String(refused.msg)).toContain(
      `battery at 100 %: the mapping key ${first.serial} is the adb serial of ${first.serial} and the udid ${second.serial} gives`,
    );
    // Both phones reported, then two more reports' worth of looks (a pause, when done, is within a second of the decision).
    const both = await cloud.waitForPut(
      (r) => r.receivedAt > at(refused) && reported('FIRST001', () => true)(r) && reported(first.serial, () => true)(r),
      20_000,
    );
    await cloud.waitForPut((r) => r.receivedAt > both.receivedAt + 3_000, 20_000);

    expect(hub.switches.slice(from)).toEqual([]);
    expect(agent.logs().filter((l) => /^pausing the charge of|switched off/.test(String(l.msg)))).toEqual([]);
    const conflict = agent.logs().filter((l) => /^the key .* names two phones/.test(String(l.msg)));
    expect(conflict).toHaveLength(1);
    expect(conflict[0]!.level).toBe('warn');
    const text = String(conflict[0]!.msg);
    // The key, both phones, and what to do.
    for (const part of [
      `the key ${first.serial} in hubPorts and charge.ways`,
      `${first.serial} (udid `,
      `${second.serial} by the udid it gives`,
      'Map the phone you mean by a name no other device gives',
      `${second.serial} (the adb serial`,
    ])
      expect(text).toContain(part);
  }, 120_000);
});
