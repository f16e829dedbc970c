import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, withSerial, type Profile } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { reported } from '../support/reports.js';
import { DaemonBed, scrapeMetrics } from './daemon-bed.js';

// Readiness for automation in the running daemon: the real adb server,
// simulated Pixels that answer `settings list global|system` and `dumpsys
// window policy` from the recordings of test/features/readiness/fixtures/
// (a LineageOS Galaxy A5's lists, edited to the values each phone here
// needs: each edit is named), the cloud double, `device-agent run` as its
// own process, on the default baseline (config/default.json).
//
// READY001  every default check met (the recorded lists with stay awake 7, animations 0,
//           verify apps over USB 0, automatic updates off), until its stay-awake is turned off
// NOTRDY02  the same, but stay awake off (the recorded stay_on_while_plugged_in=0)

const fixture = (name: string): string => readFileSync(new URL(`../features/readiness/fixtures/${name}`, import.meta.url), 'utf8');

const READY_GLOBAL = fixture('lineage18-sm-a520f-global.txt')
  .replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7')
  .replace(/^(window|transition)_animation_scale=1\.0$/gm, '$1_animation_scale=0')
  .replace('animator_duration_scale=1.0', 'animator_duration_scale=0')
  .replace('ota_disable_automatic_update=0', 'ota_disable_automatic_update=1')
  .replace('usb_mass_storage_enabled=1', 'usb_mass_storage_enabled=1\nverifier_verify_adb_installs=0');

function phone(serial: string, global: string): Profile {
  const base = withSerial(loadProfile('pixel-8-pro'), serial);
  const commands = new Map(base.commands);
  commands.set('settings list global', { output: global, exitCode: 0 });
  commands.set('settings list system', { output: fixture('lineage18-sm-a520f-system.txt'), exitCode: 0 });
  commands.set('dumpsys window policy', { output: fixture('dumpsys-window-policy-keyguard.txt'), exitCode: 0 });
  return { ...base, commands };
}

const bed = new DaemonBed('pixel-8-pro');
const { cloud } = bed;
let ready: SimDevice;

async function plug(profile: Profile): Promise<SimDevice> {
  const device = new SimDevice({ profile });
  bed.devices.push(device);
  await bed.adb.connect(await device.start());
  await bed.adb.waitForState(device.serial, 'device', 20_000);
  return device;
}

beforeAll(async () => {
  await bed.start();
  ready = await plug(phone('READY001', READY_GLOBAL));
  await plug(phone('NOTRDY02', READY_GLOBAL.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0')));
}, 60_000);
afterAll(() => bed.stop());

const STAY_AWAKE =
  "not ready for automation (1 of the lab's checks failed): stay awake while charging is 0 (stay_on_while_plugged_in), expected on: " +
  'Developer options > Stay awake on (adb shell settings put global stay_on_while_plugged_in 7)';

describe('readiness for automation', () => {
  it('names a phone whose stay-awake is off, with the fix, from its first report; says nothing of a ready one until its stay-awake is turned off, then one drift line; /metrics counts them per check', async () => {
    const agent = bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_SLOW_FACTS_REFRESH_SECONDS: '10', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
    const first = await cloud.waitForPut((r) => reported('NOTRDY02', () => true)(r) && reported('READY001', () => true)(r), 30_000);
    expect(reported('NOTRDY02', (d) => d.message === STAY_AWAKE)(first)).toBe(true);
    expect(reported('READY001', (d) => d.status === 'AVAILABLE' && d.message === undefined)(first)).toBe(true);
    const failing = (metrics: string): string | undefined => /^device_agent_readiness_failing_devices\{check="stayAwake"\} (\d+)$/m.exec(metrics)?.[1];
    let metrics = await scrapeMetrics(agent);
    expect(failing(metrics)).toBe('1');
    expect(metrics).toMatch(/^device_agent_readiness_failing_devices\{check="windowAnimation"\} 0$/m);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="ready"\} 1$/m);

    // Someone turns stay awake off: named at the next slow read, as the other.
    const off = Date.now();
    await ready.setProfile(phone('READY001', READY_GLOBAL.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0')));
    await cloud.waitForPut((r) => r.receivedAt > off && reported('READY001', (d) => d.message === STAY_AWAKE)(r), 40_000);
    // The change is one line, however many reports follow.
    const line = 'device READY001: readiness changed: stay awake while charging went from 7 to 0; it fails the baseline now';
    await agent.waitForLog((l) => l.msg === line, 10_000);
    const later = Date.now();
    await cloud.waitForPut((r) => r.receivedAt > later + 4_000, 20_000);
    expect(agent.logs().filter((l) => String(l.msg).includes('readiness changed'))).toHaveLength(1);
    metrics = await scrapeMetrics(agent);
    expect(failing(metrics)).toBe('2');
    expect(metrics).toMatch(/^device_agent_readiness_changes_total 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="not_ready"\} 2$/m);
  }, 90_000);
});
