import { DEFAULT_RATE_LIMIT } from '../../../src/log/rate-limit.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DeviceInfo } from '../../../src/cloud/types.js';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { readinessFeature } from '../../../src/features/readiness/feature.js';
import { featureContext, featureSeries } from '../../support/feature-bed.js';
import { registryTierStore } from '../../../src/platforms/android/inventory/tier-store.js';
import { VirtualClock, VirtualTime } from '../../support/virtual-time.js';
import { captureLogger } from '../../log/capture.js';
import { fixture, readinessSection } from './section.js';

// The readiness feature as the daemon drives it: the Android inventory's
// tier cache holds the readiness sections and the property dump of the
// connection (registryTierStore, as the prober keeps them), the source calls
// `answered` once per inventory, and the feature logs what drifted. The
// readings are the recorded Galaxy A5's `settings list global` (fixtures/
// README.md), edited where a test says so; the fingerprint is the recorded
// Pixel 8 Pro's (test/fixtures/devices/pixel-8-pro), and an earlier build of
// it edited from it.

const SERIAL = 'R58M20ABCD';
const KEY = `android/${SERIAL}`;
const NOW = 'google/husky/husky:16/CP1A.260305.018/14887507:user/release-keys';
const EARLIER = 'google/husky/husky:15/BP1A.250505.005/13277524:user/release-keys';
const GLOBAL = fixture('lineage18-sm-a520f-global.txt');
/** Every check of this baseline met: stay awake on, verify apps over USB off. */
const READY = GLOBAL.replace('stay_on_while_plugged_in=0', 'stay_on_while_plugged_in=7') + 'verifier_verify_adb_installs=0\n';

interface Reading {
  /** The `settings list global` text, or undefined when the readiness sections were not read. */
  global?: string;
  fingerprint?: string;
}

function bench(checks = ['stayAwake', 'verifyAdbInstalls']) {
  const registry = new DeviceRegistry();
  const time = new VirtualTime();
  const clock = new VirtualClock(time, () => 0.5, 0);
  const log = captureLogger('info');
  const feature = readinessFeature(featureContext({ registry: registry, set: { 'readiness.checks': checks }, logger: log.logger }));
  const store = registryTierStore(registry);
  registry.sync('android', new Map([[SERIAL, 'device']]));
  const info: DeviceInfo = {
    udid: SERIAL,
    serialNumber: SERIAL,
    state: 'device',
    status: 'AVAILABLE',
    platformName: 'Android',
    brandName: 'samsung',
  } as DeviceInfo;
  /** One inventory that answered with this reading, a minute after the last. */
  const answer = (reading: Reading): void => {
    time.runUntil(time.now + 60_000);
    const sections = new Map<string, string>();
    if (reading.global !== undefined) sections.set('readiness_global', readinessSection({ lists: { global: { text: reading.global } } }));
    store.set(SERIAL, {
      sections,
      props: reading.fingerprint !== undefined ? { 'ro.build.fingerprint': reading.fingerprint } : {},
      slowReadAtMs: clock.monotonic(),
      slowStale: false,
    });
    registry.readings.answered(KEY, info, clock.wall(), clock.monotonic());
    feature.answered!(registry.get(KEY)!);
  };
  const messages = (): string[] => log.lines().map((l) => String(l.msg));
  const counter = (name: string, check?: string): number | undefined =>
    featureSeries(
      feature,
      registry.list().map((r) => r.udid ?? r.serial),
    )
      .find((m) => m.name === name)
      ?.samples.find((s) => check === undefined || s.labels?.check === check)?.value;
  /** The phones by verdict, as a scrape of /metrics reads them now. */
  const devices = (): Record<string, number> =>
    Object.fromEntries(
      (
        featureSeries(
          feature,
          registry.list().map((r) => r.udid ?? r.serial),
        ).find((m) => m.name === 'device_agent_readiness_devices')?.samples ?? []
      ).map((s) => [s.labels!.verdict!, s.value]),
    );
  return { answer, messages, lines: log.lines, counter, devices, registry, store, time };
}

describe('readiness drift as the daemon sees it', () => {
  it('logs an OTA once, naming the old and the new build, and counts it; the same build again is nothing', () => {
    const { answer, messages, counter } = bench();
    answer({ global: READY, fingerprint: EARLIER });
    answer({ global: READY, fingerprint: EARLIER });
    expect(messages()).toEqual([]);
    answer({ global: READY, fingerprint: NOW });
    answer({ global: READY, fingerprint: NOW });
    expect(messages()).toEqual([
      `device ${SERIAL}: build changed from Android 15 (BP1A.250505.005) to Android 16 (CP1A.260305.018) (an OTA update or a new image; ` +
        `ro.build.fingerprint was ${EARLIER}, is ${NOW}): an update may turn developer settings back on, which its readiness then names`,
    ]);
    expect(counter('device_agent_readiness_build_changes_total')).toBe(1);
  });

  it("warns once at a phone's first not-ready moment, naming the failed checks and their fixes, and again only after it was ready", () => {
    const { answer, lines, counter } = bench();
    // The recording with verify apps over USB on (its own list has no row for it: unread).
    const on = GLOBAL + 'verifier_verify_adb_installs=1\n';
    answer({ global: on });
    answer({ global: on });
    const warnings = (): string[] =>
      lines()
        .filter((l) => l.level === 'warn')
        .map((l) => String(l.msg));
    expect(warnings()).toEqual([
      `device ${SERIAL}: not ready for automation (2 of the lab's checks failed): ` +
        'stay awake while charging is 0 (stay_on_while_plugged_in: off), expected on over USB: Developer options > Stay awake on (adb shell settings put global stay_on_while_plugged_in 7); ' +
        'verify apps over USB is 1 (verifier_verify_adb_installs), expected 0: Developer options > Verify apps over USB off (adb shell settings put global verifier_verify_adb_installs 0)',
    ]);
    expect([counter('device_agent_readiness_not_ready_total', 'stayAwake'), counter('device_agent_readiness_not_ready_total', 'verifyAdbInstalls')]).toEqual([
      1, 1,
    ]);
    // Fixed, then stay awake off again: a new stretch, one more warning.
    answer({ global: READY });
    answer({ global: READY.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0') });
    answer({ global: READY.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0') });
    expect(warnings()).toHaveLength(2);
    expect(counter('device_agent_readiness_not_ready_total', 'stayAwake')).toBe(2);
    expect(counter('device_agent_readiness_not_ready_total', 'verifyAdbInstalls')).toBe(1);
    // Three flips of stay awake (0 -> 7 -> 0) and one of verify apps, each logged once.
    expect(counter('device_agent_readiness_changes_total', 'stayAwake')).toBe(2);
    expect(counter('device_agent_readiness_changes_total', 'verifyAdbInstalls')).toBe(1);
  });

  it('holds not-ready warnings to the per-cause limit: a host whose phones start not ready says 10 a minute, not one per phone', () => {
    // One phone going not ready 15 times stands for 15 phones at start: the
    // limit is per cause (the log's, on its own clock: this runs in well under a minute).
    const { answer, lines, counter } = bench();
    const notReady = READY.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0');
    for (let i = 0; i < 15; i++) {
      answer({ global: notReady });
      answer({ global: READY });
    }
    expect(lines().filter((l) => l.level === 'warn' && String(l.msg).includes(': not ready for automation '))).toHaveLength(DEFAULT_RATE_LIMIT.burst);
    // Counted whole: the metric is not held back.
    expect(counter('device_agent_readiness_not_ready_total', 'stayAwake')).toBe(15);
  });

  it('says nothing of an inventory without readiness sections or fingerprint (an unread slow tier), and keeps what it saw across it', () => {
    const { answer, messages } = bench();
    answer({ global: READY, fingerprint: NOW });
    answer({});
    answer({ global: READY, fingerprint: NOW });
    expect(messages()).toEqual([]);
  });

  // Random sequences of readings of one phone: each of the two checks' values
  // from a small set, the fingerprint from three builds, any part unread.
  // Each line stands for one change: never more lines than changes, and
  // exactly one per change of each kind, however many reports repeat a state.
  it('logs one line per change, never one per report, on random reading sequences', () => {
    const reading = fc.record({
      stayAwake: fc.option(fc.constantFrom('0', '1', '3', '7', 'NaN', ''), { nil: undefined }),
      verify: fc.option(fc.constantFrom('0', '1', 'null'), { nil: undefined }),
      fingerprint: fc.option(fc.constantFrom(EARLIER, NOW, NOW.replace('14887507', '14887999')), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(reading, { minLength: 1, maxLength: 40 }), (readings) => {
        const { answer, lines } = bench();
        let changes = 0;
        let notReadyMoments = 0;
        let builds = 0;
        const last: { stayAwake?: string; verify?: string; fingerprint?: string; notReady?: boolean } = {};
        /**
         * The value a row reads as (an empty value, NaN or null is unread: no value); no row in a list that printed
         * rows (a list read whole) is the framework's default: 1 for both (checks.ts names their readers).
         */
        const readAs = (v: string | undefined, grammar: RegExp): string | undefined => (v === undefined ? '1' : grammar.test(v) ? v : undefined);
        for (const r of readings) {
          const listed = r.stayAwake !== undefined || r.verify !== undefined;
          // A row for each value given; a row the framework would not parse is unread, a key without a row its reader's default.
          const global = listed
            ? `${r.stayAwake !== undefined ? `stay_on_while_plugged_in=${r.stayAwake}\n` : ''}${r.verify !== undefined ? `verifier_verify_adb_installs=${r.verify}\n` : ''}`
            : undefined;
          answer({ ...(global !== undefined ? { global } : {}), ...(r.fingerprint !== undefined ? { fingerprint: r.fingerprint } : {}) });
          if (listed) {
            const stay = readAs(r.stayAwake, /^\d+$/);
            const verify = readAs(r.verify, /^[01]$/);
            // A value is compared with the last one read, whenever that was.
            if (stay !== undefined && last.stayAwake !== undefined && last.stayAwake !== stay) changes++;
            if (verify !== undefined && last.verify !== undefined && last.verify !== verify) changes++;
            // Stay awake needs the USB bit (2); unread values neither pass nor fail.
            const notReady = (stay !== undefined && (Number(stay) & 2) === 0) || (verify !== undefined && verify !== '0');
            if (notReady && !last.notReady) notReadyMoments++;
            last.notReady = notReady;
            if (stay !== undefined) last.stayAwake = stay;
            if (verify !== undefined) last.verify = verify;
          }
          if (r.fingerprint !== undefined) {
            if (last.fingerprint !== undefined && last.fingerprint !== r.fingerprint) builds++;
            last.fingerprint = r.fingerprint;
          }
        }
        const msgs = lines().map((l) => String(l.msg));
        expect(msgs.filter((m) => m.includes(': readiness changed: '))).toHaveLength(changes);
        // Not-ready warnings go through the per-cause limit (10 a minute, then one summary): a
        // sequence runs in well under a minute, so at most 10 are written.
        const notReadyLines = Math.min(notReadyMoments, DEFAULT_RATE_LIMIT.burst);
        expect(msgs.filter((m) => m.includes(': not ready for automation '))).toHaveLength(notReadyLines);
        expect(msgs.filter((m) => m.includes(': build changed from '))).toHaveLength(builds);
        expect(msgs.length).toBe(changes + notReadyLines + builds);
        expect(msgs.length).toBeLessThanOrEqual(readings.length * 4);
      }),
      { numRuns: 200 },
    );
  });
});

// The gauges between two readings: a phone's tier cache goes with its
// connection (a state flap: offline and back, a replug, an adb restart's
// re-listing) and is dropped before a reboot's full re-read (probe.ts), and
// the next reading takes a whole inventory, seconds on a slow phone. The
// gauges count the phones, so a phone listed all along stays counted by its
// last verdict until the next one is in; only a phone adb no longer lists
// leaves them. On the injected clock, scraped every second between readings.
describe('the readiness gauges between readings', () => {
  it('keep a phone in its count while its next reading is in flight: after a state flap, and with its cache dropped for a reboot', () => {
    const { answer, devices, registry, store, time } = bench();
    answer({ global: READY });
    expect(devices()).toEqual({ ready: 1, not_ready: 0, unread: 0 });
    // adb lists it offline, then back: a new connection, whose cache is empty until its first inventory answers.
    registry.sync('android', new Map([[SERIAL, 'offline']]));
    registry.sync('android', new Map([[SERIAL, 'device']]));
    for (let i = 0; i < 10; i++) {
      time.runUntil(time.now + 1_000);
      expect(devices()).toEqual({ ready: 1, not_ready: 0, unread: 0 });
    }
    answer({ global: READY.replace('stay_on_while_plugged_in=7', 'stay_on_while_plugged_in=0') });
    expect(devices()).toEqual({ ready: 0, not_ready: 1, unread: 0 });
    // A reboot seen by its uptime: the prober drops the cache, then reads every tier again.
    store.delete(SERIAL);
    for (let i = 0; i < 10; i++) {
      time.runUntil(time.now + 1_000);
      expect(devices()).toEqual({ ready: 0, not_ready: 1, unread: 0 });
    }
    // Gone from adb: out of the count.
    registry.sync('android', new Map());
    expect(devices()).toEqual({ ready: 0, not_ready: 0, unread: 0 });
  });

  it('property: a listed phone that was ever judged is counted once, by its last verdict, at every scrape, whatever flaps and reads come', () => {
    type Step =
      { kind: 'answer'; stay?: string } | { kind: 'unread' } | { kind: 'flap' } | { kind: 'drop' } | { kind: 'gone' } | { kind: 'back' } | { kind: 'wait' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('answer' as const), stay: fc.option(fc.constantFrom('0', '1', '7'), { nil: undefined }) }),
      fc.constantFrom<Step>({ kind: 'unread' }, { kind: 'flap' }, { kind: 'drop' }, { kind: 'gone' }, { kind: 'back' }, { kind: 'wait' }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const { answer, devices, registry, store, time } = bench();
        let listed = true;
        /** The last verdict read, by where it counts. */
        let last: 'ready' | 'not_ready' | 'unread' | undefined;
        for (const s of steps) {
          switch (s.kind) {
            case 'answer':
              if (!listed) break;
              // verify apps over USB off; stay awake as given, or a row the framework would not parse (unread).
              answer({ global: `stay_on_while_plugged_in=${s.stay ?? 'NaN'}\nverifier_verify_adb_installs=0\n` });
              last = s.stay === undefined ? 'unread' : s.stay === '7' ? 'ready' : 'not_ready';
              break;
            case 'unread':
              // An inventory whose slow tier was not read: no verdict, nothing changes.
              if (listed) answer({});
              break;
            case 'flap':
              if (!listed) break;
              registry.sync('android', new Map([[SERIAL, 'offline']]));
              registry.sync('android', new Map([[SERIAL, 'device']]));
              break;
            case 'drop':
              if (listed) store.delete(SERIAL);
              break;
            case 'gone':
              registry.sync('android', new Map());
              listed = false;
              break;
            case 'back':
              registry.sync('android', new Map([[SERIAL, 'device']]));
              listed = true;
              break;
            case 'wait':
              time.runUntil(time.now + 5_000);
              break;
          }
          const want = { ready: 0, not_ready: 0, unread: 0 };
          if (listed && last !== undefined) want[last] = 1;
          expect(devices()).toEqual(want);
        }
      }),
      { numRuns: 300 },
    );
  });
});
