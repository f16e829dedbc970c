import type { AndroidControl } from '../../src/platforms/android/control.js';
import { featureContext } from '../support/feature-bed.js';
import { describe, expect, it } from 'vitest';
import { buildFeatures } from '../../src/agent/features.js';
import { withNotes } from '../../src/cloud/device-message.js';
import type { DeviceFeature } from '../../src/devices/feature.js';
import { logFailedDevices, Reporter, type ReportSink } from '../../src/report/reporter.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { QUARANTINED } from '../../src/devices/verdicts.js';
import { SourceUnreachableError, type CollectRequest, type DeviceSource } from '../../src/platforms/source.js';
import { systemClock } from '../../src/util/clock.js';
import { NOTHING_DISABLED } from '../platforms/android/inventory/support.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import type { ReportPlan } from '../../src/timing/planner.js';
import { CloudAuthError, CloudRejectedError, CloudUnavailableError } from '../../src/cloud/errors.js';
import type { DeviceInfo, Machine, ReportAnswer, ReportBody } from '../../src/cloud/types.js';
import { silentLogger } from '../../src/log/logger.js';
import { captureLogger } from '../log/capture.js';
import { androidPhone, fakeSource } from '../support/devices.js';

const machine = { hostname: 'h' } as Machine;
const device = (udid: string): DeviceInfo => androidPhone(udid);

/** A sink whose answers the test releases one by one. */
class GatedSink implements ReportSink {
  readonly bodies: ReportBody[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private gates: Array<(answer: ReportAnswer | Error) => void> = [];

  putDevices(body: ReportBody): Promise<ReportAnswer> {
    this.bodies.push(structuredClone(body));
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    return new Promise((resolve, reject) => {
      this.gates.push((answer) => {
        this.inFlight--;
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      });
    });
  }

  async release(answer: ReportAnswer | Error = { failedDevices: [] }): Promise<void> {
    while (this.gates.length === 0) await new Promise((r) => setTimeout(r, 1));
    this.gates.shift()!(answer);
  }
}

/** A source whose devices the test gives, recording what each report asked of it. */
const recordingSource = (devices: () => Promise<DeviceInfo[]>, requests: CollectRequest[]): DeviceSource =>
  fakeSource(async (request: CollectRequest) => {
    requests.push(request);
    return devices();
  });

interface Extra {
  registry?: DeviceRegistry;
  /** Instead of the registered features (built on the registry). */
  features?: (registry: DeviceRegistry) => DeviceFeature[];
  stats?: AgentStats;
  machine?: () => Promise<Machine>;
  collectTimeoutMs?: number;
  unplugged?: UnpluggedLedger;
}

function reporter(sink: ReportSink, devices: () => DeviceInfo[] | Promise<DeviceInfo[]>, logger = silentLogger(), extra: Extra = {}) {
  const requests: CollectRequest[] = [];
  const registry = extra.registry ?? new DeviceRegistry();
  const stats = extra.stats ?? new AgentStats();
  const r = new Reporter({
    nodeId: 'n1',
    cloud: sink,
    sources: [recordingSource(async () => devices(), requests)],
    registry,
    features: extra.features?.(registry) ?? buildFeatures(featureContext<AndroidControl>({ registry, stats, logger })),
    settings: { hiddenDevices: [], addedToCloud: true, support: NOTHING_DISABLED },
    machine: { collect: extra.machine ?? (async () => machine) },
    unplugged: extra.unplugged ?? new UnpluggedLedger(),
    stats,
    logger,
    clock: systemClock,
    collectTimeoutMs: extra.collectTimeoutMs,
  });
  return { r, requests, registry, stats };
}

/** A registry where adb lists these devices, each with a good inventory already. */
function known(...udids: string[]): DeviceRegistry {
  const registry = new DeviceRegistry();
  registry.sync('android', new Map(udids.map((u) => [u, 'device'])));
  for (const udid of udids) registry.readings.answered(`android/${udid}`, device(udid), 0, 0);
  return registry;
}

const plan = (request: CollectRequest, reason = 'x'): ReportPlan => ({ request, reason, complete: true, listed: true, deadline: Date.now() + 60_000 });

/** A reporter over its sources and the ledger of what the cloud was told, and a send that returns each body's udid:status. */
function reportsOf(sources: DeviceSource | DeviceSource[], unplugged: UnpluggedLedger, sink: GatedSink): (p: ReportPlan) => Promise<string[]> {
  const registry = new DeviceRegistry();
  const stats = new AgentStats();
  const r = new Reporter({
    nodeId: 'n1',
    cloud: sink,
    sources: Array.isArray(sources) ? sources : [sources],
    registry,
    features: buildFeatures(featureContext<AndroidControl>({ registry, stats })),
    settings: { hiddenDevices: [], addedToCloud: true, support: NOTHING_DISABLED },
    machine: { collect: async () => machine },
    unplugged,
    stats,
    logger: silentLogger(),
    clock: systemClock,
  });
  return async (p) => {
    const sent = r.send(p);
    await sink.release();
    await sent;
    return sink.bodies.at(-1)!.devices.map((d) => `${d.udid}:${d.status}`);
  };
}

describe('Reporter', () => {
  it("the features' judges see the fresh readings only, before any feature's annotate pass; a device held off its source joins after them", async () => {
    const judged: string[][] = [];
    const annotated: string[] = [];
    const features = (registry: DeviceRegistry): DeviceFeature[] => [
      // Registered before the judge: its annotate pass still sees the judged devices.
      {
        name: 'first',
        owe: () => registry.presence.owe({ kind: 'charge-paused', scope: 'P' }, [{ udid: 'P' }], { while: 'test' }),
        annotate: (devices) => {
          annotated.push(...devices.map((d) => `${d.udid}: ${d.message ?? ''}`));
          return [...devices];
        },
      },
      {
        name: 'judge',
        judge: (devices, sources) => {
          judged.push([...devices.map((d) => d.udid), `shell: ${[...sources.shell].join()}`]);
          return devices.map((d) => withNotes({ ...d }, ['judged']));
        },
      },
    ];
    const sink = new GatedSink();
    // P's last inventory is the readings' (its record lists it; this source does not say it).
    const { r } = reporter(sink, () => [device('A')], silentLogger(), { features, registry: known('P') });
    const sent = r.send(plan({ refresh: 'all' }));
    await sink.release();
    await sent;
    // The source does not count shell sessions (fakeSource): no platform's failures are shell sessions.
    expect(judged).toEqual([['A', 'shell: ']]);
    expect(annotated).toEqual(['A: judged', 'P: ']);
  });

  it("carries an owed device with its last inventory, the readings' (within the field limits), or, one only an earlier run read, with what the cloud was told of it", async () => {
    const registry = new DeviceRegistry();
    registry.sync('android', new Map([['P', 'device']]));
    registry.readings.answered('android/P', androidPhone('P', { modelName: 'Pixel 8', deviceName: 'N'.repeat(1_000) }), 0, 0);
    registry.sync('android', new Map());
    const unplugged = new UnpluggedLedger();
    unplugged.seed([androidPhone('OLD', { modelName: 'from the state directory' })]);
    const features = (r: DeviceRegistry): DeviceFeature[] => [
      {
        name: 'owes',
        owe: () => {
          r.presence.owe({ kind: 'charge-paused', scope: 'android/P' }, [{ udid: 'P', key: 'android/P', says: { status: 'UNAVAILABLE' }, why: 'paused' }], {
            while: 'test',
          });
          r.presence.owe(
            { kind: 'off-source', scope: 'usb' },
            [
              { udid: 'OLD', why: 'on its port' },
              { udid: 'NOBODY', why: 'never read' },
            ],
            { while: 'test' },
          );
        },
      },
    ];
    const sink = new GatedSink();
    const { r } = reporter(sink, () => [], silentLogger(), { features, registry, unplugged });
    const sent = r.send(plan({ refresh: 'all' }));
    await sink.release();
    await sent;
    const [p, old, ...rest] = sink.bodies[0]!.devices;
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ udid: 'P', modelName: 'Pixel 8', status: 'UNAVAILABLE' });
    expect([...p!.deviceName!].length).toBeLessThanOrEqual(256);
    expect(p!.message).toMatch(/^paused; the phone gave a value longer than the agent sends, clipped: deviceName$/);
    expect(old).toMatchObject({ udid: 'OLD', modelName: 'from the state directory', message: 'on its port' });
  });

  it('collects with the request it is given and returns the udids it carried', async () => {
    const sink = new GatedSink();
    const { r, requests } = reporter(sink, () => [device('A'), device('B')]);
    const sent = r.send(plan({ refresh: new Set(['B']), hold: new Set(['A']) }, 'devices-changed'));
    await sink.release({ failedDevices: [{ udid: 'B', message: 'missing capability' }] });
    const outcome = await sent;
    expect(requests).toEqual([{ refresh: new Set(['B']), hold: new Set(['A']) }]);
    expect(outcome).toMatchObject({ delivered: true, sent: ['A', 'B'], failedDevices: [{ udid: 'B' }] });
  });

  it('classifies what was not delivered: transient, rejected (4xx), auth, and a failed inventory', async () => {
    const cases: Array<[Error, string]> = [
      [new CloudUnavailableError('PUT /devices', 'HTTP 503', { status: 503 }), 'transient'],
      [new CloudRejectedError('PUT /devices', 422, '{"error":"bad"}'), 'rejected'],
      [new CloudAuthError('PUT /devices', 401), 'auth'],
    ];
    for (const [error, failure] of cases) {
      const sink = new GatedSink();
      const { r } = reporter(sink, () => [device('A')]);
      const sent = r.send(plan({ refresh: 'all' }, 'x'));
      await sink.release(error);
      expect(await sent).toMatchObject({ delivered: false, failure });
    }
    // The host's own part failing fails the report; a source failing does not (below).
    const { r: broken } = reporter(new GatedSink(), () => [device('A')], silentLogger(), {
      machine: () => Promise.reject(new Error('/proc/meminfo unreadable')),
    });
    expect(await broken.send(plan({ refresh: 'all' }, 'x'))).toMatchObject({ delivered: false, failure: 'transient' });
  });

  it('a source that throws does not fail the report: its devices go out with their last inventories and a message naming the failure, none as gone, nor left out', async () => {
    const sink = new GatedSink();
    const log = captureLogger();
    let fail = false;
    let answerOnly = ['A', 'B'];
    const { r, stats } = reporter(
      sink,
      () => {
        if (fail) throw new Error('adb went away');
        return answerOnly.map(device);
      },
      log.logger,
      // B has no record with an inventory (its listing went with the source): absent from the report, yet not gone.
      { registry: known('A') },
    );
    const first = r.send(plan({ refresh: 'all' }));
    await sink.release();
    await first;
    expect(stats.sourceRuns.get('android')).toMatchObject({ ok: true });
    fail = true;
    const second = r.send(plan({ refresh: 'all' }));
    await sink.release();
    expect(await second).toMatchObject({ delivered: true, sent: ['A', 'B'] });
    const body = sink.bodies[1]!;
    // B, without a record, is what the cloud was told of it: UNAVAILABLE, never left out (the cloud would take it as gone).
    expect(body.devices.map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE', 'B:UNAVAILABLE']);
    expect(body.devices[0]!.message).toBe(
      "the agent could not read its android devices (fake: adb went away); a fault on the agent host's side, not known to be the device's: this is the device's last known state",
    );
    expect(body.devices[1]!.message).toBe(
      "the agent could not read its android devices (fake: adb went away); a fault on the agent host's side, not known to be the device's: this is the device as the agent last reported it",
    );
    expect(stats.sourceRuns.get('android')).toMatchObject({ ok: false });
    expect(
      log
        .lines()
        .filter(
          (l) => l.msg === 'collecting the android devices failed (fake: adb went away); the report carries their last inventories and calls none of them gone',
        ),
    ).toHaveLength(1);
    // The source answers again without A: the failure's entry in the presence ledger ended with it, so A is gone, once.
    fail = false;
    answerOnly = ['B'];
    const third = r.send(plan({ refresh: 'all' }));
    await sink.release();
    await third;
    expect(sink.bodies[2]!.devices.map((d) => `${d.udid}:${d.status}`)).toEqual(['B:AVAILABLE', 'A:UNPLUGGED']);
  });

  it('a phone carried while its source fails is said with the verdicts standing on it, as a listed one is', async () => {
    const sink = new GatedSink();
    let fail = false;
    const registry = known('A');
    const { r } = reporter(
      sink,
      () => {
        if (fail) throw new Error('adb went away');
        return [device('A')];
      },
      silentLogger(),
      { registry },
    );
    registry.timeline.verdict('A', QUARANTINED, { out: { state: 'quarantined', layer: 'phone' }, unavailable: true, appiumOff: true, words: 'held by a test' });
    const send = async () => {
      const sent = r.send(plan({ refresh: 'all' }));
      await sink.release();
      await sent;
      return sink.bodies.at(-1)!.devices.find((d) => d.udid === 'A')!;
    };
    expect((await send()).message).toBe('held by a test');
    fail = true;
    const carried = await send();
    expect([carried.status, carried.support?.appiumDisabled]).toEqual(['UNAVAILABLE', true]);
    expect(carried.message).toMatch(/^held by a test; the agent could not read its android devices \(fake: adb went away\)/);
  });

  // Issue 61's follow-up: a daemon started with no adb server (or usbmuxd) must not tell the cloud that the phones the last
  // run reported (the state directory's reported-devices.json, seeded into the UNPLUGGED ledger) are gone.
  it("an earlier run's phones whose source has not answered since the start go out UNAVAILABLE naming the source; once it answers, those it does not list are UNPLUGGED only when its list is complete", async () => {
    const sink = new GatedSink();
    const unplugged = new UnpluggedLedger();
    unplugged.seed([device('A'), device('B')]);
    let up = false;
    const source = Object.assign(
      fakeSource(async () => {
        if (!up) throw new SourceUnreachableError('no adb server at tcp:127.0.0.1:5037 (ECONNREFUSED)', 'No Android device is listed.');
        return [device('A')];
      }),
      { label: 'tcp:127.0.0.1:5037' },
    );
    Object.defineProperty(source, 'listed', { get: () => up });
    const send = reportsOf(source, unplugged, sink);
    // The start report, after its wait for a first listing that never came.
    expect(await send({ ...plan({ refresh: 'all' }), complete: false, listed: false })).toEqual(['A:UNAVAILABLE', 'B:UNAVAILABLE']);
    expect(sink.bodies[0]!.devices[0]!.message).toBe(
      "the agent has not read its android devices since it started (tcp:127.0.0.1:5037: no adb server at tcp:127.0.0.1:5037 (ECONNREFUSED)); a fault on the agent host's side, not known to be the device's: this is the device as the agent last reported it",
    );
    expect(await send({ ...plan({ refresh: 'all' }), complete: false, listed: false })).toEqual(['A:UNAVAILABLE', 'B:UNAVAILABLE']);
    // The server answers and lists A; its list settles (10 s): B is not gone yet.
    up = true;
    unplugged.sourceConnected();
    expect(await send({ ...plan({ refresh: 'all' }), complete: false })).toEqual(['A:AVAILABLE', 'B:UNAVAILABLE']);
    expect(sink.bodies.at(-1)!.devices[1]!.message).toMatch(/^tcp:127\.0\.0\.1:5037 does not list it now, and the agent cannot take its list as complete yet/);
    expect(await send({ ...plan({ refresh: 'all' }), complete: false })).toEqual(['A:AVAILABLE', 'B:UNAVAILABLE']);
    // Settled, and still not listed: gone, once.
    expect(await send(plan({ refresh: 'all' }))).toEqual(['A:AVAILABLE', 'B:UNPLUGGED']);
    expect(await send(plan({ refresh: 'all' }))).toEqual(['A:AVAILABLE']);
  });

  it("after a restart whose source answers at once, an earlier run's phone it has yet to list is left to the cloud's last word while the list settles, not carried UNAVAILABLE (no flap at every upgrade); gone once settled", async () => {
    const sink = new GatedSink();
    const unplugged = new UnpluggedLedger();
    unplugged.seed([device('A'), device('B')]);
    const source = Object.assign(
      fakeSource(async () => [device('A')]),
      { label: 'tcp:127.0.0.1:5037' },
    );
    Object.defineProperty(source, 'listed', { get: () => true });
    const send = reportsOf(source, unplugged, sink);
    unplugged.sourceConnected();
    expect(await send({ ...plan({ refresh: 'all' }), complete: false })).toEqual(['A:AVAILABLE']);
    expect(await send({ ...plan({ refresh: 'all' }), complete: false })).toEqual(['A:AVAILABLE']);
    expect(await send(plan({ refresh: 'all' }))).toEqual(['A:AVAILABLE', 'B:UNPLUGGED']);
  });

  it("a source that lists nothing while its service never answered (usbmuxd absent: no iPhone listed, no error) does not make an earlier run's iPhones gone", async () => {
    const sink = new GatedSink();
    const unplugged = new UnpluggedLedger();
    const iphone: DeviceInfo = { ...device('00008120-000A'), platformName: 'iOS' };
    unplugged.seed([device('A'), iphone]);
    let answered = false;
    const ios = Object.assign(
      fakeSource(async () => []),
      { platform: 'ios' as const, label: 'UNIX:/var/run/usbmuxd' },
    );
    Object.defineProperty(ios, 'answered', { get: () => answered });
    const android = fakeSource(async () => [device('A')]);
    const reports = reportsOf([android, ios], unplugged, sink);
    const send = () => reports(plan({ refresh: 'all' }));
    expect(await send()).toEqual(['A:AVAILABLE', '00008120-000A:UNAVAILABLE']);
    expect(sink.bodies[0]!.devices[1]!.message).toMatch(/^the agent has not read its ios devices since it started \(UNIX:\/var\/run\/usbmuxd\)/);
    // usbmuxd answers, without it: gone.
    answered = true;
    expect(await send()).toEqual(['A:AVAILABLE', '00008120-000A:UNPLUGGED']);
  });

  it('a source that does not answer in time does not hold the report: its devices go out with their last inventories', async () => {
    const sink = new GatedSink();
    const { r, stats } = reporter(sink, () => new Promise<DeviceInfo[]>(() => undefined), silentLogger(), { registry: known('A', 'B'), collectTimeoutMs: 50 });
    const sent = r.send(plan({ refresh: 'all' }));
    await sink.release();
    expect(await sent).toMatchObject({ delivered: true, sent: ['A', 'B'] });
    expect(sink.bodies[0]!.devices[0]!.message).toMatch(/\(fake: it did not answer within 0 s\)/);
    expect(stats.sourceRuns.get('android')).toMatchObject({ ok: false });
  });

  it('a report made after every listing, every source answering, counts for /healthz; one made before does not', async () => {
    const sink = new GatedSink();
    const { r, stats } = reporter(sink, () => [device('A')]);
    const early = r.send({ ...plan({ refresh: 'all' }), listed: false });
    await sink.release();
    await early;
    expect(stats.listingDelivered).toBe(false);
    const later = r.send(plan({ refresh: 'all' }));
    await sink.release();
    await later;
    expect(stats.listingDelivered).toBe(true);
  });

  it('sends an unplugged device once as UNPLUGGED after a delivered report, and does not count it as sent', async () => {
    const sink = new GatedSink();
    let current = [device('A'), device('B')];
    const { r } = reporter(sink, () => current);
    const a = r.send(plan({ refresh: 'all' }, 'x'));
    await sink.release();
    await a;
    current = [device('A')];
    const b = r.send(plan({ refresh: 'all' }, 'x'));
    await sink.release();
    expect(await b).toMatchObject({ sent: ['A'] });
    const c = r.send(plan({ refresh: 'all' }, 'x'));
    await sink.release();
    await c;
    expect(sink.bodies.map((body) => body.devices.map((d) => `${d.udid}:${d.status}`))).toEqual([
      ['A:AVAILABLE', 'B:AVAILABLE'],
      ['A:AVAILABLE', 'B:UNPLUGGED'],
      ['A:AVAILABLE'],
    ]);
  });

  it('says at debug level how long the devices took, apart from the Machine stats and the PUT (npm run bench reads it)', async () => {
    const sink = new GatedSink();
    const log = captureLogger();
    const { r } = reporter(
      sink,
      async () => {
        await new Promise((done) => setTimeout(done, 30));
        return [device('A'), device('B')];
      },
      log.logger,
    );
    const sent = r.send(plan({ refresh: 'all' }, 'x'));
    await sink.release();
    await sent;
    const lines = log.lines().filter((l) => l.msg === 'inventory collected');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'debug', devices: 2 });
    expect(lines[0]!.ms).toBeGreaterThanOrEqual(25);
  });

  it('counts present and unplugged devices apart in the "report delivered" line', async () => {
    const sink = new GatedSink();
    const log = captureLogger();
    let current = [device('A'), device('B'), device('C')];
    const { r } = reporter(sink, () => current, log.logger);
    const first = r.send(plan({ refresh: 'all' }, 'x'));
    await sink.release();
    await first;
    current = [device('A')];
    const second = r.send(plan({ refresh: 'all' }, 'x'));
    await sink.release();
    await second;
    const delivered = log.lines().filter((l) => l.msg === 'report delivered');
    expect(delivered.map((l) => [l.devices, l.unplugged])).toEqual([
      [3, 0],
      [1, 2],
    ]);
  });
});

describe('logFailedDevices', () => {
  const entries = (prefix: string, n: number, message = 'device belongs to another node') =>
    Array.from({ length: n }, (_, i) => ({ udid: `${prefix}${i}`, message }));

  it('says what 5,000 refused and 5,000 unsent entries are in 12 lines: ten with advice, one for the rest, one for the unsent', () => {
    const { logger, lines } = captureLogger();
    logFailedDevices(logger, entries('REFUSED', 5_000, 'missing required capability: platformVersion'), entries('ELSE', 5_000));
    const msgs = lines().map((l) => String(l.msg));
    expect(msgs).toHaveLength(12);
    expect(msgs[0]).toBe(
      "the cloud did not store device REFUSED0: missing required capability: platformVersion. The device's inventory lacks a field the cloud requires: " +
        'check that the device is unlocked, fully booted and authorized for adb; if it persists, update the agent.',
    );
    expect(msgs[10]).toBe(
      'the cloud did not store 4990 more devices (REFUSED10, REFUSED11, REFUSED12, REFUSED13, REFUSED14, REFUSED15, REFUSED16, REFUSED17, REFUSED18, REFUSED19 and 4980 more); ' +
        'the cloud said "missing required capability: platformVersion" (4990). device_agent_failed_device in /metrics lists them all',
    );
    expect(msgs[11]).toBe(
      'the cloud named 5000 devices in failedDevices that the report did not carry (ELSE0, ELSE1, ELSE2, ELSE3, ELSE4, ELSE5, ELSE6, ELSE7, ELSE8, ELSE9 and 4990 more); ' +
        'the cloud said "device belongs to another node" (5000); ignored (nothing to retry)',
    );
  });

  it('one unsent entry in one plain line; a cloud message of a megabyte is cut in the log', () => {
    const { logger, lines } = captureLogger();
    logFailedDevices(logger, [{ udid: 'A', message: 'x'.repeat(2 ** 20) }], [{ udid: 'GONE', message: 'unknown' }]);
    const msgs = lines().map((l) => String(l.msg));
    expect(msgs[0]!.length).toBeLessThan(600);
    expect(msgs[1]).toBe(
      'the cloud named 1 device in failedDevices that the report did not carry (GONE); the cloud said "unknown"; ignored (nothing to retry)',
    );
  });

  it('the same answer on every report: at most 11 lines a minute of each kind', () => {
    const { logger, lines } = captureLogger();
    for (let i = 0; i < 50; i++) logFailedDevices(logger, [], entries(`R${i}X`, 100));
    expect(lines().filter((l) => String(l.msg).includes('did not carry'))).toHaveLength(10);
  });
});
