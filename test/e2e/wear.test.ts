// Wear end to end: the compiled CLI in its own process against the real adb
// server with simulated Android phones and the simulated usbmuxd with an
// iPhone, each answering the wear readings with the recordings of
// test/features/wear/fixtures/SOURCES.md. `list --json` shows what each phone
// told of its wear and what it needs; a phone that tells nothing is never worn.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayOf } from '../../src/features/wear/forecast.js';
import { decodePlist, type Dict } from '../../src/platforms/ios/framing.js';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';
import { SimUsbmuxd } from '../sim-ios/usbmuxd.js';
import { fixture, withWear } from '../features/wear/section.js';
import { baseEnv, runAgent } from './agent-process.js';

const adb = new AdbServer();
// A Pixel 8 Pro (Android 16) answering the Pixel 7's trade-in report and the Mi 6's worn bms uevent: another phone's
// recordings, so that one phone shows both sources; its identity is the Pixel 8 Pro's.
const worn = new SimDevice({
  profile: withWear(withSerial(loadProfile('pixel-8-pro'), 'WEARWORN0001'), {
    supplies: { bms: fixture('mi6-c1_atl-bms-uevent.txt') },
    tradeIn: fixture('pixel7-tradeinmode-getstatus.json'),
    packages: 'package:io.appium.settings uid:10300\npackage:org.example.leftover uid:19993\n',
    tmp: { names: ['a.apk', 'trace.zip'], kib: 2048 },
  }),
});
// Only its recorded property dump: every wear source absent.
const silent = new SimDevice({ profile: withSerial(loadProfile('oneplus-nord-n10'), 'WEARNONE0001') });
// The Mi 6's bms uevent with its full capacity edited to 85 % of design: healthy on one look, fading on its history.
const at85 = fixture('mi6-c1_atl-bms-uevent.txt').replace(/^POWER_SUPPLY_CHARGE_FULL=\d+$/m, 'POWER_SUPPLY_CHARGE_FULL=2847500');
const fading = new SimDevice({ profile: withWear(withSerial(loadProfile('pixel-8-pro'), 'WEARFADE0001'), { supplies: { bms: at85 } }) });
// Two phones giving one udid (a clone, a forged ro.serialno), each with the same battery.
const clones = [0, 1].map(() => new SimDevice({ profile: withWear(withSerial(loadProfile('pixel-8-pro'), 'WEARCLONE001'), { supplies: { bms: at85 } }) }));
const mux = new SimUsbmuxd();
const serialOf = (d: SimDevice): string => `127.0.0.1:${d.port}`;

beforeAll(async () => {
  await adb.start();
  await mux.start();
  const ports = await Promise.all([worn, silent, fading, ...clones].map((d) => d.start()));
  for (const port of ports) await adb.connect(port, { wait: false });
  await adb.waitForStates(new Map(ports.map((p) => [`127.0.0.1:${p}`, 'device'])), 20_000);
});

afterAll(async () => {
  await adb.stop();
  await Promise.all([...[worn, silent, fading, ...clones].map((d) => d.stop()), mux.dispose()]);
});

describe('wear in list --json', () => {
  it('names the worn phone with its figures and sources, the iPhone through its diagnostics relay, and never the phone that tells nothing', async () => {
    const ioregistry = (decodePlist(Buffer.from(fixture('iphone14pro-ios26-ioregistry.plist'))) as Dict).IORegistry as Dict;
    const iphone = mux.plug({ profile: 'iphone-15-ios17', udid: '00008120-0000000000WEAR', relay: { ioregistry } });
    try {
      const run = await runAgent(
        ['list', '--json'],
        baseEnv({
          ...adb.env,
          ...mux.env,
          DEVICE_AGENT_NODE_ID: 'wear-lab',
          DEVICE_AGENT_WEAR_BASELINE_PACKAGES: 'io.appium.*',
          DEVICE_AGENT_WEAR_TMP_MAX_MIB: '1',
        }),
      );
      expect(run.code, run.stderr).toBe(0);
      const rows = new Map((JSON.parse(run.stdout) as Array<Record<string, unknown>>).map((r) => [r.udid as string, r]));
      // The trade-in report first (16 cycles, health 100); the bms uevent's 65 % does not count over it.
      expect(rows.get('WEARWORN0001')).toMatchObject({
        batteryCycles: 16,
        batteryHealthPercent: 100,
        wear: { batterySource: 'tradeinmode', storageLifeUsedPercent: 1, maxAppId: 19993, leftoverPackages: 1, tmpKib: 2048, daysLeft: 0 },
      });
      expect((rows.get('WEARWORN0001')!.wear as { findings: Array<{ reason: string }> }).findings.map((f) => f.reason).sort()).toEqual(['app_ids', 'tmp']);
      expect(String(rows.get('WEARWORN0001')!.message)).toMatch(/app ids nearly used up: an installed package has app id 19993/);
      const none = rows.get('WEARNONE0001')!;
      expect(none).not.toHaveProperty('batteryCycles');
      expect(none.wear).toMatchObject({ unread: expect.arrayContaining(['power_supply: absent', 'tradeinmode: absent']) });
      expect(none.wear).not.toHaveProperty('daysLeft');
      expect(rows.get(iphone.udid)).toMatchObject({
        batteryCycles: 950,
        batteryHealthPercent: 87,
        wear: { batterySource: 'ioregistry', daysLeft: 0, reason: 'battery_cycles' },
      });
    } finally {
      mux.unplug(iphone);
    }
  });
});

/** An env whose state directory holds the daemon's wear history: 30 days of a battery fading half a point a day to 86 % yesterday. */
function withHistory(udids: readonly string[]): Record<string, string> {
  const env = baseEnv({ ...adb.env, ...mux.env, DEVICE_AGENT_NODE_ID: 'wear-lab' });
  const today = dayOf(Date.now());
  const history = Array.from({ length: 30 }, (_, i) => ({ day: today - 30 + i, health: 100 - Math.floor(i / 2) }));
  mkdirSync(env.DEVICE_AGENT_STATE_DIR!, { recursive: true });
  writeFileSync(join(env.DEVICE_AGENT_STATE_DIR!, 'wear-history.json'), JSON.stringify({ phones: Object.fromEntries(udids.map((u) => [u, history])) }));
  return env;
}

describe("the daemon's wear history in the one-shot commands", () => {
  it('doctor forecasts a network phone (adb serial HOST:PORT) from the history the daemon keeps by its udid', async () => {
    const run = await runAgent(['doctor'], withHistory(['WEARFADE0001']));
    expect(run.stdout).toMatch(new RegExp(`^\\[WARN\\] device ${serialOf(fading).replace(/\./g, '\\.')}: worn: battery capacity in about \\d+ days$`, 'm'));
  });

  it('two phones giving one udid: neither is forecast from the history kept by it, and list and doctor say why', async () => {
    const env = withHistory(['WEARCLONE001']);
    const list = await runAgent(['list', '--json'], env);
    expect(list.code, list.stderr).toBe(0);
    const rows = (JSON.parse(list.stdout) as Array<{ udid: string; wear?: Record<string, unknown> }>).filter((r) => r.udid === 'WEARCLONE001');
    // One is reported, the other named in a warning (the identity-conflict rule of docs/design/faults.md).
    expect(rows).toHaveLength(1);
    for (const row of rows) {
      expect(row.wear).not.toHaveProperty('daysLeft');
      expect(row.wear).toMatchObject({ noForecast: expect.stringMatching(/^identity in conflict: 2 devices \(adb serials .*\) give the udid WEARCLONE001; /) });
    }
    const doctor = await runAgent(['doctor'], env);
    for (const clone of clones) {
      const serial = serialOf(clone).replace(/\./g, '\\.');
      expect(doctor.stdout).not.toMatch(new RegExp(`device ${serial}: worn`));
      expect(doctor.stdout).toMatch(
        new RegExp(`^\\[WARN\\] device ${serial}: no wear forecast: identity in conflict: 2 devices .* give the udid WEARCLONE001`, 'm'),
      );
    }
  });
});
