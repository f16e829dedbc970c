import { describe, expect, it } from 'vitest';
import { hubDaemonBed, standIn } from './hub-daemon-bed.js';
import { reported } from '../support/reports.js';

// A phone on Wi-Fi adb charged from a switchable hub port stays on adb while
// its port is off: the agent keeps reading its battery, and the pause ends at
// the low mark rather than at the longest time. The real adb server, the
// simulated phone, the cloud double and the stand-in uhubctl, as in
// charge-control.test.ts.

const { bed, hub } = hubDaemonBed('samsung-galaxy-s25-plus');
const { cloud } = bed;

describe('charge control: the low mark', () => {
  it('switches the port on when a phone that stays on adb drains to the low mark, long before the longest pause', async () => {
    const phone = await bed.networkPhone('CHARGE03');
    await phone.setBatteryLevel(85);
    hub.attach('1-1.4', 2, phone, { powerOnly: true });
    cloud.setBooked('CHARGE03', false);
    const from = hub.switches.length;
    const switches = () => hub.switches.slice(from);
    const agent = bed.run({
      ...hub.env,
      DEVICE_AGENT_NETWORK_DEVICES: phone.serial,
      DEVICE_AGENT_HUB_PORTS: 'CHARGE03=1-1.4:2',
      DEVICE_AGENT_CHARGE_WAYS: 'model:SM-S93*=uhubctl',
      DEVICE_AGENT_CHARGE_LOW_PERCENT: '40',
      DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS: '3600',
      DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: standIn,
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    });

    // Paused, yet still on adb and inventoried: reported UNAVAILABLE with the reason, from fresh readings.
    await cloud.waitForPut(
      reported('CHARGE03', (d) => d.status === 'UNAVAILABLE' && /charge paused to spare the battery/.test(d.message ?? '')),
      40_000,
    );
    expect(switches().map((s) => s.power)).toEqual(['off']);
    await phone.setBatteryLevel(55);
    await cloud.waitForPut(
      reported('CHARGE03', (d) => d.battery?.percentage === '55' && d.status === 'UNAVAILABLE'),
      30_000,
    );
    expect(
      switches().map((s) => s.power),
      'above the low mark the pause goes on',
    ).toEqual(['off']);

    await phone.setBatteryLevel(38);
    const drained = Date.now();
    await agent.waitForLog((l) => /hub 1-1\.4 port 2 switched on/.test(String(l.msg)), 30_000);
    expect(switches().map((s) => s.power)).toEqual(['off', 'on']);
    expect(switches()[1]!.at - drained, 'at the next readings, not the hour of the longest pause').toBeLessThan(20_000);
    expect(agent.logs().some((l) => /ending the charge pause of CHARGE03: the battery is down to the low mark/.test(String(l.msg)))).toBe(true);

    // On power again and below the high mark: reported as itself, and no pause starts again.
    const on = switches()[1]!.at;
    await cloud.waitForPut((r) => r.receivedAt > on && reported('CHARGE03', (d) => d.status === 'AVAILABLE' && d.battery?.percentage === '38')(r), 30_000);
    expect(switches()).toHaveLength(2);
    expect(cloud.putRequests().some(reported('CHARGE03', (d) => d.status === 'UNPLUGGED'))).toBe(false);
  }, 180_000);
});
