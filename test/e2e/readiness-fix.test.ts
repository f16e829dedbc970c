import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, withSerial, type Profile } from '../sim/profile.js';
import { SimDevice, type SimDeviceOptions } from '../sim/sim-device.js';
import { reported } from '../support/reports.js';
import { waitFor } from '../support/wait.js';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';

// Readiness's fix-it action (readiness.fix) in the running daemon: the real
// adb server, simulated Pixels that answer `settings list global|system`
// from the recordings of test/features/readiness/fixtures/ (a LineageOS
// Galaxy A5's lists, edited so that every default check but the ones below
// is met, as in readiness.test.ts) and keep the fixable settings as state,
// so that `settings put` changes what `settings get` and `settings list`
// answer; the cloud double answering the booking status.
//
// FIXFREE1  stay awake off, animations on; not booked: put back, read back, reported ready
// FIXBOOK2  the same, booked: nothing written, said once
// FIXSTIK3  the same, not booked, but its animator duration scale does not stick: one warning
// FIXSLOW4  the same, every shell answering 2.5 s late; not booked until its first write lands, booked after

const fixture = (name: string): string => readFileSync(new URL(`../features/readiness/fixtures/${name}`, import.meta.url), 'utf8');

const GLOBAL = fixture('lineage18-sm-a520f-global.txt')
  .replace('ota_disable_automatic_update=0', 'ota_disable_automatic_update=1')
  .replace('usb_mass_storage_enabled=1', 'usb_mass_storage_enabled=1\nverifier_verify_adb_installs=0');

/** The settings the action may change, as the phone keeps them: stay awake off, the three animation scales on. */
const DRIFTED = {
  stay_on_while_plugged_in: '0',
  window_animation_scale: '1.0',
  transition_animation_scale: '1.0',
  animator_duration_scale: '1.0',
  verifier_verify_adb_installs: '0',
  'system/accelerometer_rotation': '0',
};

function phone(serial: string): Profile {
  const base = withSerial(loadProfile('pixel-8-pro'), serial);
  const commands = new Map(base.commands);
  commands.set('settings list global', { output: GLOBAL, exitCode: 0 });
  commands.set('settings list system', { output: fixture('lineage18-sm-a520f-system.txt'), exitCode: 0 });
  commands.set('dumpsys window policy', { output: fixture('dumpsys-window-policy-keyguard.txt'), exitCode: 0 });
  return { ...base, commands };
}

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;
const phones: Record<string, SimDevice> = {};

async function plug(serial: string, options: Partial<SimDeviceOptions> = {}): Promise<void> {
  const device = new SimDevice({ profile: phone(serial), settings: { ...DRIFTED }, ...options });
  bed.devices.push(device);
  phones[serial] = device;
  await bed.adb.connect(await device.start());
  await bed.adb.waitForState(device.serial, 'device', 20_000);
}

beforeAll(async () => {
  await bed.start();
  await plug('FIXFREE1');
  await plug('FIXBOOK2');
  await plug('FIXSTIK3', { settingsThatDoNotStick: ['animator_duration_scale'] });
  cloud.setBooked('FIXFREE1', false).setBooked('FIXBOOK2', true).setBooked('FIXSTIK3', false);
}, 60_000);
afterAll(() => bed.stop());

const settingsOf = async (device: SimDevice): Promise<Record<string, string | undefined>> =>
  Object.fromEntries(await Promise.all(Object.keys(DRIFTED).map(async (key) => [key, await device.setting(key)] as const)));

describe('readiness.fix', () => {
  it('puts the settings back on a phone the cloud says is free, reads them back and reports it ready; writes nothing on a booked one; names what did not stick once', async () => {
    const agent = bed.run({
      DEVICE_AGENT_READINESS_FIX: 'true',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_SLOW_FACTS_REFRESH_SECONDS: '10',
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      DEVICE_AGENT_RECOVERY_BOOKING_REQUESTS_PER_MINUTE: '60',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
    });
    // Not ready at first, stay awake and the animations named.
    await cloud.waitForPut(
      reported('FIXFREE1', (d) => /^not ready for automation \(4 of the lab's checks failed\)/.test(d.message ?? '')),
      30_000,
    );

    // One info line naming each setting changed, old → new, then the phone as the baseline wants it.
    const line =
      'device FIXFREE1: readiness settings put back after the cloud said it is not booked: stay_on_while_plugged_in 0 → 7, ' +
      'window_animation_scale 1.0 → 0, transition_animation_scale 1.0 → 0, animator_duration_scale 1.0 → 0';
    await agent.waitForLog((l) => l.msg === line, 40_000);
    expect(await settingsOf(phones.FIXFREE1!)).toEqual({
      ...DRIFTED,
      stay_on_while_plugged_in: '7',
      window_animation_scale: '0',
      transition_animation_scale: '0',
      animator_duration_scale: '0',
    });
    // Its next slow read (the inventory's own `settings list`) finds it ready.
    await cloud.waitForPut(
      reported('FIXFREE1', (d) => d.status === 'AVAILABLE' && d.message === undefined),
      40_000,
    );

    // What did not stick: one warning naming the setting and the phone; the others put back.
    await agent.waitForLog(
      (l) => l.level === 'warn' && String(l.msg).startsWith('device FIXSTIK3: global animator_duration_scale did not stick (wrote 0, reads 1.0)'),
      20_000,
    );
    expect(await phones.FIXSTIK3!.setting('animator_duration_scale')).toBe('1.0');
    expect(await phones.FIXSTIK3!.setting('stay_on_while_plugged_in')).toBe('7');

    // Booked: said once, nothing written, however long it stays booked.
    await agent.waitForLog((l) => l.msg === 'device FIXBOOK2: readiness settings not put back: the cloud says it is booked', 20_000);
    // The cloud asked again and again (its answer kept 2 s) while the phone stays booked.
    const asked = cloud.statusRequests('FIXBOOK2').length;
    await waitFor(() => cloud.statusRequests('FIXBOOK2').length >= asked + 2, 30_000);
    expect(await settingsOf(phones.FIXBOOK2!)).toEqual(DRIFTED);
    expect(cloud.statusRequests('FIXBOOK2').length).toBeGreaterThan(0);
    expect(agent.logs().filter((l) => String(l.msg).startsWith('device FIXBOOK2: readiness settings'))).toHaveLength(1);
    expect(agent.logs().filter((l) => String(l.msg).includes('did not stick'))).toHaveLength(1);

    const metrics = await scrapeMetrics(agent);
    expect(metrics).toMatch(/^device_agent_readiness_fixes_total\{result="fixed"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_fixes_total\{result="not_taken"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_fixes_total\{result="refused"\} 1$/m);
  }, 120_000);

  it('on a phone slow to answer (2.5 s a command), asks the cloud again before each write whose "not booked" is 3 s old: booked by then, nothing more is written', async () => {
    await bed.reset();
    await plug('FIXSLOW4', { delayMs: 2_500 });
    cloud.setBooked('FIXSLOW4', false);
    const agent = bed.run({
      DEVICE_AGENT_READINESS_FIX: 'true',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
      DEVICE_AGENT_SLOW_FACTS_REFRESH_SECONDS: '10',
      DEVICE_AGENT_RECOVERY_BOOKING_REQUESTS_PER_MINUTE: '60',
    });
    // Once the cloud has answered its first question (not booked: the first write goes on it), it says booked.
    await waitFor(() => cloud.statusRequests('FIXSLOW4').length > 0, 90_000, 'a first status request');
    cloud.setBooked('FIXSLOW4', true);
    const asked = cloud.statusRequests('FIXSLOW4').length;
    await agent.waitForLog((l) => String(l.msg).startsWith('device FIXSLOW4: readiness settings fix stopped before writing window_animation_scale'), 60_000);
    // Asked again before the second write (the first and its read-back took 5 s), which was not made; the first was.
    expect(cloud.statusRequests('FIXSLOW4').length).toBeGreaterThan(asked);
    expect(await settingsOf(phones.FIXSLOW4!)).toEqual({ ...DRIFTED, stay_on_while_plugged_in: '7' });
  }, 180_000);
});
