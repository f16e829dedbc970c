// The iOS source against the simulated usbmuxd: paired, untrusted and silent
// phones each reported as the spec wants, identity read once per connection,
// and what it knows of a phone kept in the registry and gone with it.
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { createLogger } from '../../../src/log/logger.js';
import { parseUsbmuxdAddress } from '../../../src/config/usbmuxd-address.js';
import type { ProbeResult } from '../../../src/platforms/ios/probe.js';
import { IosSource, type IosSourceOptions } from '../../../src/platforms/ios/source.js';
import { systemClock } from '../../../src/util/clock.js';
import { SimUsbmuxd } from '../../sim-ios/usbmuxd.js';
import { annotateAll, cellsOf } from '../../../src/devices/feature.js';
import { readinessFeature } from '../../../src/features/readiness/feature.js';
import { featureContext, featureSeries } from '../../support/feature-bed.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function capture() {
  const lines: { level: string; msg: string }[] = [];
  const logger = createLogger({ pretty: false, level: 'debug', destination: { write: (l: string) => lines.push(JSON.parse(l)) } });
  return { lines, logger };
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function setup(o: Partial<IosSourceOptions> = {}) {
  const sim = new SimUsbmuxd();
  await sim.start();
  cleanups.push(() => sim.dispose());
  const { lines, logger } = capture();
  const registry = new DeviceRegistry();
  const source = new IosSource({
    address: parseUsbmuxdAddress(sim.address),
    registry,
    logger,
    clock: systemClock,
    stepTimeoutMs: 400,
    concurrency: 4,
    reconcileMs: 60_000,
    slowFactsRefreshMs: 900_000,
    ...o,
  });
  cleanups.push(() => source.stop());
  return { sim, source, registry, lines };
}

const all = { refresh: 'all' as const };
/** What the source says of its phones, without the records they are said of. */
const infos = async (source: IosSource) => (await source.collect(all)).map((d) => d.info);

describe('IosSource', () => {
  it('reports paired, untrusted and silent phones, each as the spec wants, in one call', async () => {
    const { sim, source, registry, lines } = await setup();
    const paired = sim.plug({ profile: 'iphone-13-ios16' });
    const untrusted = sim.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: 'UNTRUSTED-2' });
    await source.start();
    const first = await infos(source);
    const byUdid = new Map(first.map((i) => [i.udid, i]));
    expect(byUdid.get(paired.udid)).toMatchObject({ status: 'AVAILABLE', platformName: 'IOS', isIos: true, isAndroid: false, modelName: 'iPhone 13' });
    expect(byUdid.get(untrusted.udid)).toMatchObject({ status: 'UNAVAILABLE', modelName: 'iPhone 15', message: expect.stringContaining('idevicepair pair') });
    expect(paired.sessions).toBe(1);

    // The paired phone's lockdown now hangs: last good inventory plus a message, and a failure in its record.
    paired.state = 'hang';
    const t0 = Date.now();
    const second = await infos(source);
    expect(Date.now() - t0).toBeLessThan(1500);
    const silent = second.find((i) => i.udid === paired.udid)!;
    expect(silent).toMatchObject({ status: 'AVAILABLE', serialNumber: paired.profile.root.SerialNumber, battery: byUdid.get(paired.udid)!.battery });
    expect(silent.message).toMatch(/did not answer/);
    expect(registry.find('ios', paired.udid)?.failures).toBe(1);
    // The log line names the phone, what failed and what to do, as its message does.
    const warned = lines.filter((l) => l.level === 'warn').map((l) => l.msg);
    expect(warned).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^iPhone ${paired.udid}: lockdown did not answer \\(.+\\); its last good inventory is reported. Unlock it; if it stays, unplug and replug it, or restart usbmuxd if every iPhone does this$`,
        ),
      ),
    );
    expect(warned).toContainEqual(`iPhone ${untrusted.udid} is not paired with this host: unlock it, tap Trust, then run \`idevicepair pair\``);
  });

  it('an untrusted phone is found by its udid, as a paired one is: readiness names it not ready on paired, READY says so, Appium is off for it', async () => {
    const { sim, source, registry } = await setup();
    const untrusted = sim.plug({ profile: 'iphone-15-ios17', state: 'untrusted', udid: 'UNTRUSTED-3' });
    await source.start();
    const [info] = await infos(source);
    expect(registry.byUdid(untrusted.udid).map((r) => r.key)).toEqual([`ios/${untrusted.udid}`]);
    const feature = readinessFeature(featureContext({ registry, set: { 'readiness.checks': ['paired', 'developerMode', 'passcode', 'osVersion'] } }));
    // The report's passes: the features' annotate, then the verdicts standing on it (src/devices/compose.ts).
    const [annotated] = annotateAll([feature], [info!], new Map(), registry.timeline);
    expect(annotated!.support).toMatchObject({ appiumDisabled: true });
    expect(cellsOf([feature], info!, registry.byUdid(untrusted.udid)[0])).toEqual({ readiness: 'not ready: paired' });
    expect(featureSeries(feature, [untrusted.udid]).find((m) => m.name === 'device_agent_readiness_devices')?.samples).toContainEqual({
      labels: { verdict: 'not_ready' },
      value: 1,
    });
  });

  it('reads identity once per connection: later cycles read only battery and disk usage, a replug or the slow refresh reads it again', async () => {
    let now = 0;
    const { sim, source, registry } = await setup({ slowFactsRefreshMs: 60_000, clock: { ...systemClock, monotonic: () => now } });
    const listed = (udid: string) => registry.list('ios').some((r) => r.serial === udid);
    const phone = sim.plug({ profile: 'iphone-13-ios16' });
    await source.start();
    const requests = () => phone.log.filter((l) => l.request === 'GetValue').map((l) => l.domain ?? l.key ?? 'root');
    const rootReads = () => requests().filter((r) => r === 'root').length;
    const first = (await infos(source))[0]!;
    expect(rootReads()).toBe(1);
    // Developer Mode (readiness) is read with the root, in the same session: at connect and on the slow refresh only;
    // last, so that lockdown refusing it costs that one check (test/platforms/ios/probe.e2e.test.ts).
    expect(requests()).toEqual(['ProductVersion', 'root', 'com.apple.mobile.battery', 'com.apple.disk_usage', 'com.apple.security.mac.amfi']);

    phone.log.length = 0;
    now += 30_000;
    const second = (await infos(source))[0]!;
    expect(requests()).toEqual(['com.apple.mobile.battery', 'com.apple.disk_usage']);
    expect(phone.sessions).toBe(2);
    // Every field is still there: identity from the first read.
    expect(second).toEqual(first);

    // The slow refresh reads the root again (a renamed phone shows).
    phone.log.length = 0;
    now += 31_000;
    await infos(source);
    expect(rootReads()).toBe(1);
    expect(requests().filter((r) => r === 'com.apple.security.mac.amfi')).toHaveLength(1);

    // A full report an operator asked for (invalidateSlow) reads it again, within the refresh period.
    phone.log.length = 0;
    source.invalidateSlow();
    await infos(source);
    expect(rootReads()).toBe(1);
    phone.log.length = 0;
    await infos(source);
    expect(rootReads()).toBe(0);

    // A replug is a new connection (new DeviceID): identity read again.
    sim.unplug(phone);
    await until(() => !listed(phone.udid), 2000);
    const again = sim.plug({ profile: 'iphone-13-ios16' });
    await until(() => listed(again.udid), 2000);
    await infos(source);
    expect(again.log.filter((l) => l.request === 'GetValue' && !l.domain && !l.key)).toHaveLength(1);

    // A usbmuxd restart numbers its devices anew: the phone kept through it, on another DeviceID, is another connection.
    const other = sim.plug({ profile: 'iphone-13-ios16', udid: '00008110-0000000000000B02' });
    await until(() => listed(other.udid), 2000);
    await infos(source);
    sim.unplug(again);
    await until(() => !listed(again.udid), 2000);
    const before = other.deviceId;
    await sim.restart();
    await until(() => other.deviceId !== before && listed(other.udid), 2000);
    other.log.length = 0;
    // Described from its last reading until the new usbmuxd lists it, then asked.
    for (const t0 = Date.now(); !other.log.some((l) => l.request === 'GetValue') && Date.now() - t0 < 10_000;)
      await infos(source).then(() => new Promise((r) => setTimeout(r, 50)));
    expect(other.log.filter((l) => l.request === 'GetValue' && !l.domain && !l.key)).toHaveLength(1);
  });

  it('forgets the last good inventory of an unplugged phone: its record goes', async () => {
    const results: ProbeResult[] = [
      { kind: 'ok', values: { root: { ProductType: 'iPhone14,5', SerialNumber: 'S1' } } },
      { kind: 'silent', detail: 'x' },
    ];
    const { sim, source, registry } = await setup({ probe: async () => results.shift()! });
    const phone = sim.plug({ profile: 'iphone-13-ios16' });
    await source.start();
    expect((await infos(source))[0]?.serialNumber).toBe('S1');
    sim.unplug(phone);
    await until(() => registry.size === 0, 2000);
    expect(await infos(source)).toEqual([]);
    sim.plug({ profile: 'iphone-13-ios16', udid: phone.udid });
    await until(() => registry.size === 1, 2000);
    const after = await infos(source);
    expect(after[0]).toMatchObject({ serialNumber: phone.udid, status: 'UNAVAILABLE' });
  });
});
