import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProfile, withProps, withSerial, type Profile } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { reported, type ReportedDevice } from '../support/reports.js';
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
// OTAPHONE3 ready on an earlier build (the recorded Pixel 8 Pro's fingerprint edited to an
//           Android 15 build id), then an OTA: it reboots on the recorded Android 16 build
//           with verify apps over USB back on (its verifier_verify_adb_installs row reads 1)
// LINEAGE5  the recorded POCO F6, a LineageOS build on Xiaomi hardware (no MIUI or HyperOS), the READY001 lists
// HYPEROS6  the same, its properties edited to HyperOS's (the Xiaomi 14's of getprop/collect), "USB debugging (Security
//           settings)" off
// NOLIST04  a phone whose `settings` has no `list`, as Android 5's SettingsCmd (a Fire TV stick on
//           Fire OS 5): "Invalid command: list" and the usage, from the source, exit status 0

const fixture = (name: string): string => readFileSync(new URL(`../features/readiness/fixtures/${name}`, import.meta.url), 'utf8');

const READY_GLOBAL = fixture('lineage18-sm-a520f-global.txt')
  .replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7')
  .replace(/^(window|transition)_animation_scale=1\.0$/gm, '$1_animation_scale=0')
  .replace('animator_duration_scale=1.0', 'animator_duration_scale=0')
  .replace('ota_disable_automatic_update=0', 'ota_disable_automatic_update=1')
  .replace('usb_mass_storage_enabled=1', 'usb_mass_storage_enabled=1\nverifier_verify_adb_installs=0');

function phone(serial: string, global: string, profile = 'pixel-8-pro'): Profile {
  const base = withSerial(loadProfile(profile), serial);
  const commands = new Map(base.commands);
  commands.set('settings list global', { output: global, exitCode: 0 });
  commands.set('settings list system', { output: fixture('lineage18-sm-a520f-system.txt'), exitCode: 0 });
  commands.set('dumpsys window policy', { output: fixture('dumpsys-window-policy-keyguard.txt'), exitCode: 0 });
  return { ...base, commands };
}

/** The Android version the report gives (a field the shared ReportedDevice leaves out). */
const versionOf = (d: ReportedDevice): string | undefined => (d as { platformVersion?: string }).platformVersion;

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
  "not ready for automation (1 of the lab's checks failed): stay awake while charging is 0 (stay_on_while_plugged_in: off), expected on over USB: " +
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
    // Each phone's first not-ready moment: one warning with the fix, NOTRDY02's at its first reading, READY001's at the change.
    const warnings = agent.logs().filter((l) => l.level === 'warn' && String(l.msg).includes(': not ready for automation'));
    expect(warnings.map((l) => String(l.msg)).sort()).toEqual([`device NOTRDY02: ${STAY_AWAKE}`, `device READY001: ${STAY_AWAKE}`]);
    metrics = await scrapeMetrics(agent);
    expect(failing(metrics)).toBe('2');
    expect(metrics).toMatch(/^device_agent_readiness_changes_total\{check="stayAwake"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_not_ready_total\{check="stayAwake"\} 2$/m);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="not_ready"\} 2$/m);
  }, 90_000);

  it('an OTA that changes the build and turns verify apps over USB back on: one build line, one flip line, one not-ready warning, counted, whatever the reports', async () => {
    await bed.reset();
    const NOW = 'google/husky/husky:16/CP1A.260305.018/14887507:user/release-keys';
    const EARLIER = NOW.replace(':16/CP1A.260305.018/14887507:', ':15/BP1A.250505.005/13277524:');
    const before = withProps(phone('OTAPHONE3', READY_GLOBAL), {
      'ro.build.fingerprint': EARLIER,
      'ro.system.build.fingerprint': EARLIER,
      'ro.build.version.release': '15',
      'ro.build.id': 'BP1A.250505.005',
    });
    const ota = await plug(before);
    const agent = bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_SLOW_FACTS_REFRESH_SECONDS: '10', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
    await cloud.waitForPut(
      reported('OTAPHONE3', (d) => d.status === 'AVAILABLE' && versionOf(d) === '15' && d.message === undefined),
      30_000,
    );

    // The update: the phone reboots on the new build, its verify apps over USB back on.
    const at = Date.now();
    await ota.reboot({
      profile: phone('OTAPHONE3', READY_GLOBAL.replace('verifier_verify_adb_installs=0', 'verifier_verify_adb_installs=1')),
      uptimeSeconds: 5,
    });
    const VERIFY =
      "not ready for automation (1 of the lab's checks failed): verify apps over USB is 1 (verifier_verify_adb_installs), expected 0: " +
      'Developer options > Verify apps over USB off (adb shell settings put global verifier_verify_adb_installs 0)';
    await cloud.waitForPut((r) => r.receivedAt > at && reported('OTAPHONE3', (d) => versionOf(d) === '16' && d.message === VERIFY)(r), 40_000);
    const build =
      'device OTAPHONE3: build changed from Android 15 (BP1A.250505.005) to Android 16 (CP1A.260305.018) (an OTA update or a new image; ' +
      `ro.build.fingerprint was ${EARLIER}, is ${NOW}): an update may turn developer settings back on, which its readiness then names`;
    await agent.waitForLog((l) => l.msg === build, 10_000);
    await agent.waitForLog((l) => l.msg === `device OTAPHONE3: ${VERIFY}` && l.level === 'warn', 10_000);
    // More reports, and a slow read past the change: still one line of each.
    const later = Date.now();
    await cloud.waitForPut((r) => r.receivedAt > later + 12_000, 30_000);
    const said = (text: string): number => agent.logs().filter((l) => String(l.msg).includes(text)).length;
    expect([said('build changed from'), said('readiness changed: verify apps over USB went from 0 to 1'), said(': not ready for automation')]).toEqual([
      1, 1, 1,
    ]);
    expect(said('readiness changed')).toBe(1);
    const metrics = await scrapeMetrics(agent);
    expect(metrics).toMatch(/^device_agent_readiness_build_changes_total 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_changes_total\{check="verifyAdbInstalls"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_not_ready_total\{check="verifyAdbInstalls"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_failing_devices\{check="verifyAdbInstalls"\} 1$/m);
  }, 120_000);

  it("a Xiaomi on a custom ROM is judged without MIUI's toggles, neither unread nor failed on them; the same phone on HyperOS is judged on them", async () => {
    await bed.reset();
    await plug(phone('LINEAGE5', READY_GLOBAL, 'xiaomi-poco-f6'));
    const hyperos = { 'ro.miui.ui.version.code': '816', 'ro.mi.os.version.code': '2', 'persist.security.adbinput': '0', 'persist.security.adbinstall': '1' };
    await plug(withProps(phone('HYPEROS6', READY_GLOBAL, 'xiaomi-poco-f6'), hyperos));
    const agent = bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
    const put = await cloud.waitForPut(
      (r) => reported('LINEAGE5', (d) => d.status === 'AVAILABLE')(r) && reported('HYPEROS6', (d) => d.message !== undefined)(r),
      30_000,
    );
    // The recorded POCO's charger (11 V) is named by the battery's rules; readiness says nothing of it.
    expect(reported('LINEAGE5', (d) => !/not ready/.test(d.message ?? ''))(put)).toBe(true);
    expect(
      reported('HYPEROS6', (d) =>
        /^not ready for automation \(1 of the lab's checks failed\): Xiaomi "USB debugging \(Security settings\)" is 0/.test(d.message ?? ''),
      )(put),
    ).toBe(true);
    await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 10_000);
    const metrics = await scrapeMetrics(agent);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="ready"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="not_ready"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="unread"\} 0$/m);
  }, 90_000);

  it('a phone whose settings cannot list (Android 5 has no list command, and exits 0) is unread: READY says so, counted neither ready nor failing', async () => {
    await bed.reset();
    // SettingsCmd.printUsage() of Android 5 (frameworks/base cmds/settings), after its "Invalid command: list".
    const usage = [
      'Invalid command: list',
      'usage:  settings [--user NUM] get namespace key',
      '        settings [--user NUM] put namespace key value',
      '',
      "'namespace' is one of {system, secure, global}, case-insensitive",
      "If '--user NUM' is not given, the operations are performed on the owner user.",
    ].join('\n');
    const base = phone('NOLIST04', '');
    const commands = new Map(base.commands);
    commands.set('settings list global', { output: usage, exitCode: 0 });
    commands.set('settings list system', { output: usage, exitCode: 0 });
    await plug({ ...base, commands });
    const agent = bed.run({ DEVICE_AGENT_SCHEDULE: '*/2 * * * * *', DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0' });
    await cloud.waitForPut(
      reported('NOLIST04', (d) => d.status === 'AVAILABLE'),
      30_000,
    );
    await agent.waitForLog((l) => l.msg === 'status endpoint listening (/healthz, /metrics)', 10_000);
    // Its first inventory read every tier, the readiness sections with them: the lists as nothing, its keyguard as it is.
    const metrics = await scrapeMetrics(agent);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="unread"\} 1$/m);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="ready"\} 0$/m);
    expect(metrics).toMatch(/^device_agent_readiness_devices\{verdict="not_ready"\} 0$/m);
    expect(metrics).not.toMatch(/^device_agent_readiness_failing_devices\{check="[a-zA-Z]+"\} [1-9]/m);
    // Nothing failed: no not-ready line, no not-ready message.
    expect(agent.logs().filter((l) => String(l.msg).includes('not ready for automation'))).toEqual([]);
    const after = Date.now();
    const put = await cloud.waitForPut((r) => r.receivedAt > after && reported('NOLIST04', () => true)(r), 10_000);
    expect(reported('NOLIST04', (d) => d.message === undefined)(put)).toBe(true);
  }, 90_000);
});
