import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scrapeMetrics } from './daemon-bed.js';
import { hubDaemonBed, standIn } from './hub-daemon-bed.js';
import { reported } from '../support/reports.js';

// A hub that says it switched a port off and keeps power on it (mvp/uhubctl
// #617, #319, #324, #330), in the running daemon: the real adb server, a
// simulated Samsung on Wi-Fi adb charged from hub 1-1.4 port 3, whose
// `dumpsys battery` goes on saying `USB powered: true` with the port "off",
// the cloud double, and the stand-in uhubctl on the hub bed. The check's
// decision on virtual time is test/features/charge/power-check.property.test.ts.

const { bed, hub } = hubDaemonBed('samsung-galaxy-s25-plus');
const { cloud } = bed;
const UNCUT =
  /^hub 1-1\.4 port 3 does not cut power: CHARGE05 stayed on power \(\d+ readings on power over \d+ s with the port switched off\); charge control no longer switches this port\. To pause this phone's charge, put it on a hub with real per-port power switching \(https:\/\/github\.com\/mvp\/uhubctl#compatible-usb-hubs\)$/;
const NOTE = /hub 1-1\.4 port 3 does not cut power when switched off \(.*\): charge control no longer pauses this phone there/;

describe('charge control on a hub port that does not cut power', () => {
  it('names the port once, ends the pause, says so in the phone message and the metrics, and does not switch that port again, after a restart too', async () => {
    const phone = await bed.networkPhone('CHARGE05');
    await phone.setBatteryLevel(90);
    hub.attach('1-1.4', 3, phone, { powerOnly: true, keepsPower: true });
    cloud.setBooked('CHARGE05', false);
    const from = hub.switches.length;
    const switches = () => hub.switches.slice(from).map((s) => s.power);
    const env = {
      ...hub.env,
      DEVICE_AGENT_STATE_DIR: join(mkdtempSync(join(tmpdir(), 'da-power-path-')), 'state'),
      DEVICE_AGENT_NETWORK_DEVICES: phone.serial,
      DEVICE_AGENT_HUB_PORTS: 'CHARGE05=1-1.4:3',
      DEVICE_AGENT_CHARGE_WAYS: 'CHARGE05=uhubctl',
      DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS: '3600',
      DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: standIn,
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    };
    const agent = bed.run(env);

    await agent.waitForLog((l) => /hub 1-1\.4 port 3 switched off/.test(String(l.msg)), 40_000);
    const named = await agent.waitForLog((l) => UNCUT.test(String(l.msg)), 70_000);
    expect(named).toMatchObject({ level: 'warn', hub: '1-1.4', port: 3, udid: 'CHARGE05' });
    // The pause spares nothing: it ends at once, long before its hour.
    await agent.waitForLog((l) => /hub 1-1\.4 port 3 switched on/.test(String(l.msg)), 20_000);
    expect(switches()).toEqual(['off', 'on']);
    expect(agent.logs().some((l) => /ending the charge pause of CHARGE05: its phone stayed on power with the port off/.test(String(l.msg)))).toBe(true);
    const on = hub.switches.at(-1)!.at;
    await cloud.waitForPut((r) => r.receivedAt > on && reported('CHARGE05', (d) => d.status === 'AVAILABLE' && NOTE.test(d.message ?? ''))(r), 30_000);

    const text = await scrapeMetrics(agent);
    expect(text).toMatch(/^device_agent_charge_ports_without_power_cut 1$/m);
    expect(text).toMatch(/^device_agent_charge_power_checks_total\{result="not_cut"\} 1$/m);
    expect(text).toMatch(/^device_agent_charge_pause_ends_total\{why="power_not_cut"\} 1$/m);

    // Still at 90 % and not booked: no pause on that port, and no second line.
    const later = Date.now();
    await cloud.waitForPut((r) => r.receivedAt > later + 10_000 && reported('CHARGE05', (d) => NOTE.test(d.message ?? ''))(r), 30_000);
    expect(switches()).toEqual(['off', 'on']);
    expect(agent.logs().filter((l) => UNCUT.test(String(l.msg)))).toHaveLength(1);
    await agent.stop();

    // The next run reads the mark from the state directory: the port stays as it is.
    const again = bed.run(env);
    const start = Date.now();
    await cloud.waitForPut((r) => r.receivedAt > start + 10_000 && reported('CHARGE05', (d) => NOTE.test(d.message ?? ''))(r), 40_000);
    expect(switches()).toEqual(['off', 'on']);
    expect(again.logs().filter((l) => UNCUT.test(String(l.msg)))).toEqual([]);
  }, 240_000);
});
