import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimDevice } from '../sim/sim-device.js';
import { baseEnv, runAgent } from './agent-process.js';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';
import { reported } from '../support/reports.js';
import { waitFor } from '../support/wait.js';

// Samsung's battery protection (charge.ways = samsung) in the running
// daemon: the real adb server, simulated Galaxy S25+ phones keeping
// protect_battery as state, the cloud double answering the booking status,
// /metrics over HTTP, and `list` as its own process.
//
// SAMON001  protect_battery 0, not booked: written, read back as 1
// SAMNO002  protect_battery 0, a One UI that drops the write: the problem
// SAMBK003  protect_battery unset (null), booked: left alone until free
// PIXEL004  a Pixel that charge.ways names samsung by its id: not a Samsung, left alone

const bed = new DaemonBed('samsung-galaxy-s25-plus');
const { cloud } = bed;
const phones: Record<string, SimDevice> = {};
const NOT_TAKEN = 'Samsung battery protection did not take (protect_battery reads 0); this One UI may not have it: use a hub way (uhubctl/command)';

const state = (metrics: string, udid: string): string | undefined =>
  new RegExp(`^device_agent_device_battery_protection\\{udid="${udid}",state="([a-z-]+)"\\} 1$`, 'm').exec(metrics)?.[1];

beforeAll(async () => {
  await bed.start();
  const plug = async (udid: string, options: Parameters<DaemonBed['plug']>[1]) => (phones[udid] = await bed.plug(udid, options));
  await plug('SAMON001', { settings: { protect_battery: '0' } });
  await plug('SAMNO002', { settings: { protect_battery: '0' }, ignoresSettingWrites: true });
  await plug('SAMBK003', { settings: { protect_battery: 'null' } });
  await plug('PIXEL004', { profile: 'pixel-8-pro', settings: { protect_battery: '0' } });
  cloud.setBooked('SAMON001', false).setBooked('SAMNO002', false).setBooked('SAMBK003', true).setBooked('PIXEL004', false);
}, 60_000);
afterAll(() => bed.stop());

describe("Samsung's battery protection", () => {
  it('writes protect_battery where it is off and the phone is free, reads it back, and reports what did not take; a booked phone waits', async () => {
    const agent = bed.run({
      DEVICE_AGENT_CHARGE_WAYS: 'model:SM-*=samsung,PIXEL004=samsung',
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      // The booked phone asks at every look; the default 4 a minute would hold its write up to a minute after it is freed.
      DEVICE_AGENT_RECOVERY_BOOKING_REQUESTS_PER_MINUTE: '60',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    });

    // Written and read back as 1: on, and reported without a word about it.
    await agent.waitForLog((l) => /^device SAMON001: Samsung battery protection on \(protect_battery was 0, reads 1 now\)/.test(String(l.msg)), 40_000);
    expect(await phones.SAMON001!.setting('protect_battery')).toBe('1');
    const writeAt = Date.now();
    await cloud.waitForPut((r) => r.receivedAt > writeAt && reported('SAMON001', (d) => d.status === 'AVAILABLE' && !d.message)(r), 20_000);

    // A phone that drops the write: the problem on the device, in the log once, in the metrics.
    await cloud.waitForPut(
      reported('SAMNO002', (d) => d.message === NOT_TAKEN),
      40_000,
    );
    expect(await phones.SAMNO002!.setting('protect_battery')).toBe('0');

    // Not a Samsung: said on the device and in the log, its setting left as it was.
    await cloud.waitForPut(
      reported('PIXEL004', (d) => /charge\.ways names samsung, but this phone's brand is google: its battery is left alone/.test(d.message ?? '')),
      20_000,
    );
    expect(await phones.PIXEL004!.setting('protect_battery')).toBe('0');

    // Booked: read, never written, while the cloud says so.
    // Bounded by looks, not by time: two more "booked" answers after the read (the booked phone
    // asks at every look), each a decision that left the setting alone; or a write, which stops the asking.
    await agent.waitForLog((l) => l.msg === 'device SAMBK003: protect_battery reads null', 20_000);
    const asked = cloud.statusRequests('SAMBK003').length;
    const written = () => agent.logs().some((l) => String(l.msg).startsWith('device SAMBK003: Samsung battery protection on'));
    await waitFor(() => cloud.statusRequests('SAMBK003').length >= asked + 2 || written(), 20_000, 'two more booking questions for SAMBK003');
    expect(await phones.SAMBK003!.setting('protect_battery')).toBe('null');
    let metrics = await scrapeMetrics(agent);
    expect(state(metrics, 'SAMON001')).toBe('on');
    expect(state(metrics, 'SAMNO002')).toBe('not-taken');
    expect(state(metrics, 'SAMBK003')).toBe('pending');
    expect(state(metrics, 'PIXEL004')).toBe('not-samsung');
    expect(metrics).toMatch(/^device_agent_battery_protection_writes_total\{result="taken"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_battery_protection_writes_total\{result="not_taken"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_battery_protection_problems_total\{problem="not_taken"\} 1$/m);

    // Free: written at the next look.
    cloud.setBooked('SAMBK003', false);
    const freed = Date.now();
    await agent.waitForLog((l) => /^device SAMBK003: Samsung battery protection on \(protect_battery was null, reads 1 now\)/.test(String(l.msg)), 30_000);
    expect(await phones.SAMBK003!.setting('protect_battery')).toBe('1');
    // The "not booked" that let it go came after the phone was freed.
    expect(cloud.statusRequests('SAMBK003').some((r) => r.receivedAt >= freed)).toBe(true);
    metrics = await scrapeMetrics(agent);
    expect(state(metrics, 'SAMBK003')).toBe('on');

    // Said once each, however many looks and reports went by.
    const lines = (re: RegExp) => agent.logs().filter((l) => re.test(String(l.msg))).length;
    expect(lines(/^device SAMNO002: Samsung battery protection did not take/)).toBe(1);
    expect(lines(/^device PIXEL004: charge\.ways names samsung/)).toBe(1);
    // Written once each: SAMON001 is on, SAMNO002 waits out the cooldown.
    expect(lines(/Samsung battery protection on/)).toBe(2);
    await agent.stop();
  }, 150_000);

  it('list: the CHARGE column shows the state it reads, and list writes nothing', async () => {
    await phones.SAMON001!.setSetting('protect_battery', '0');
    const env = baseEnv({ ...bed.adb.env, DEVICE_AGENT_CHARGE_WAYS: 'model:SM-*=samsung' });
    const table = await runAgent(['list'], env);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/\bCHARGE\b/);
    const line = (udid: string) => lines.find((l) => l.includes(` ${udid} `)) ?? `no line for ${udid}`;
    expect(line('SAMON001')).toMatch(/ samsung:pending(\s|$)/);
    expect(line('SAMBK003')).toMatch(/ samsung:on(\s|$)/);
    expect(await phones.SAMON001!.setting('protect_battery')).toBe('0');
  }, 60_000);
});
