import fc from 'fast-check';
import { loadSettings } from '../../src/config/load.js';
import { featureContext } from '../support/feature-bed.js';
import { describe, expect, it } from 'vitest';
import { propertyRuns } from '../support/property-runs.js';
import type { DeviceInfo, Machine, ReportAnswer, ReportBody } from '../../src/cloud/types.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { healthFeature } from '../../src/features/health/feature.js';
import { silentLogger } from '../../src/log/logger.js';
import type { DeviceSource } from '../../src/platforms/source.js';
import { cleanString, cleanStrings, REPLACEMENT } from '../../src/report/clean-strings.js';
import { Reporter, type ReportSink } from '../../src/report/reporter.js';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import type { ReportPlan } from '../../src/timing/planner.js';
import { AgentStats } from '../../src/stats/agent-stats.js';
import { systemClock } from '../../src/util/clock.js';
import { shippedHealth } from '../features/health/defaults.js';
import { NOTHING_DISABLED } from '../platforms/android/inventory/support.js';
import { fakeSource } from '../support/devices.js';

/** The oracle, written apart from the code: a code unit the cloud must not get. */
function badUnits(text: string): number[] {
  const bad: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || (c >= 0x7f && c <= 0x9f)) bad.push(c);
  }
  if (!text.isWellFormed()) bad.push(-1);
  return bad;
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  }
  return out;
}

// Strings of any UTF-16 code unit, weighted towards the ones that matter:
// NUL, the other C0 and C1 controls, DEL, tab and newline, lone surrogates.
const nasty = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '\u0000',
      '\u0001',
      '\u0008',
      '\u000b',
      '\u000d',
      '\u001b',
      '\u001f',
      '\u007f',
      '\u0085',
      '\u009f',
      '\t',
      '\n',
      '\ud800',
      '\udfff',
      '\u00a0',
      'é',
      '😀',
    ),
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.constantFrom('a', 'B', '7', ' ', '-'),
  ),
  maxLength: 24,
});

const deviceInfo: fc.Arbitrary<DeviceInfo> = fc.record(
  {
    udid: nasty,
    serialNumber: nasty,
    state: fc.constantFrom('device', 'offline', 'unauthorized'),
    status: fc.constantFrom('AVAILABLE', 'UNAVAILABLE'),
    message: nasty,
    platformName: fc.constant('ANDROID'),
    platformVersion: nasty,
    modelName: nasty,
    brandName: nasty,
    deviceName: nasty,
    cpuArchitecture: nasty,
    isAndroid: fc.constant(true),
    isIos: fc.constant(false),
    isRooted: fc.boolean(),
    adbTunnelInfo: fc.dictionary(nasty, nasty, { maxKeys: 3 }),
    installedBrowsers: fc.array(fc.record({ name: nasty }), { maxLength: 3 }),
    battery: fc.record({ status: nasty, technology: nasty, percentage: nasty, temperature: fc.integer({ min: -20, max: 80 }) }, { requiredKeys: [] }),
    telephony: fc.record({
      mobileDataState: nasty,
      carriersInfo: fc.array(fc.record({ imei: nasty, meid: nasty, iccid: nasty, slot: fc.nat(3) }), { maxLength: 2 }),
    }),
    networkReachability: fc.record({ host: nasty, ipAddress: nasty, status: nasty, code: fc.nat(2) }, { requiredKeys: [] }),
  },
  { requiredKeys: ['udid', 'serialNumber', 'state', 'status', 'platformName', 'isAndroid', 'isIos'] },
);

const machine: fc.Arbitrary<Machine> = fc.record({
  hostname: nasty,
  arch: nasty,
  freemem: fc.nat(),
  totalmem: fc.nat(),
  platform: nasty,
  type: nasty,
  uptime: fc.nat(),
  version: nasty,
  buildNumber: nasty,
  network: fc.record({ address: nasty, netmask: nasty, family: nasty, mac: nasty, cidr: nasty, internal: fc.boolean() }),
});

/** A source that hands out the given devices. */
const source = (devices: () => DeviceInfo[]): DeviceSource => fakeSource(async () => devices());

function reporter(nodeId: string, sink: ReportSink, devices: () => DeviceInfo[], host: Machine): Reporter {
  const registry = new DeviceRegistry();
  return new Reporter({
    nodeId,
    cloud: sink,
    sources: [source(devices)],
    registry,
    // Health judges each reading, as in the daemon: its messages are cleaned too.
    features: [healthFeature(featureContext({ registry, settings: { ...loadSettings({ env: {} }), health: shippedHealth } }))],
    settings: { hiddenDevices: [], addedToCloud: true, support: NOTHING_DISABLED },
    machine: { collect: async () => host },
    unplugged: new UnpluggedLedger(),
    stats: new AgentStats(),
    logger: silentLogger(),
    clock: systemClock,
  });
}

const plan: ReportPlan = { request: { refresh: 'all' }, reason: 'test', complete: true, listed: true, deadline: Date.now() + 3_600_000 };

class CapturingSink implements ReportSink {
  readonly raw: string[] = [];
  async putDevices(body: ReportBody): Promise<ReportAnswer> {
    // What goes on the wire: the client sends JSON.stringify of the body.
    this.raw.push(JSON.stringify(body));
    return { failedDevices: [] };
  }
}

describe('clean strings', () => {
  it('whatever strings the devices and the host hold, the PUT body carries no NUL, no other control character but tab and newline, and no lone surrogate', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(deviceInfo, { maxLength: 4 }), machine, nasty, async (devices, host, nodeId) => {
        const sink = new CapturingSink();
        const outcome = await reporter(nodeId, sink, () => devices, host).send(plan);
        expect(outcome.delivered).toBe(true);
        const sent = JSON.parse(sink.raw[0]!) as ReportBody;
        for (const text of strings(sent)) expect(badUnits(text), JSON.stringify(text)).toEqual([]);
        // Nothing else changes: the same devices, in the same order, each string as long as before.
        expect(sent.devices).toHaveLength(devices.length);
        sent.devices.forEach((d, i) => expect(d.udid.length).toBe(devices[i]!.udid.length));
        expect(sent.machine.freemem).toBe(host.freemem);
      }),
      propertyRuns(300),
    );
  });

  it('keeps tab, newline and every printable character; replaces the rest with U+FFFD, one for one', () => {
    fc.assert(
      fc.property(nasty, (text) => {
        const out = cleanString(text);
        expect(out).toHaveLength(text.length);
        for (let i = 0; i < text.length; i++) {
          const same = out[i] === text[i];
          const c = text.charCodeAt(i);
          const surrogate = c >= 0xd800 && c <= 0xdfff;
          if (!same) expect(out[i]).toBe(REPLACEMENT);
          if (!surrogate) expect(same).toBe(badUnits(text[i]!).length === 0);
        }
        expect(cleanString(out)).toBe(out);
      }),
      propertyRuns(2_000),
    );
  });

  it('returns the very same objects when nothing needed cleaning: a clean report is not copied', () => {
    const body = { nodeId: 'n', devices: [{ udid: 'A', installedBrowsers: [{ name: 'chrome' }], battery: { temperature: 30 } }] };
    expect(cleanStrings(body)).toBe(body);
    const dirty = { ...body, devices: [...body.devices, { udid: 'B', deviceName: 'Lab\u0000phone' }] };
    const cleaned = cleanStrings(dirty);
    expect(cleaned.devices[0]).toBe(body.devices[0]);
    expect(cleaned.devices[1]).toEqual({ udid: 'B', deviceName: 'Lab\ufffdphone' });
    expect(dirty.devices[1]).toEqual({ udid: 'B', deviceName: 'Lab\u0000phone' });
  });

  it('a device whose udid holds a control character keeps one record under its cleaned udid across reports, never an UNPLUGGED twin', async () => {
    const sink = new CapturingSink();
    const device: DeviceInfo = {
      udid: 'ODD\u0001ONE',
      serialNumber: 'ODD\u0001ONE',
      state: 'device',
      status: 'AVAILABLE',
      platformName: 'ANDROID',
      isAndroid: true,
      isIos: false,
    };
    const r = reporter('n', sink, () => [device], {} as Machine);
    await r.send(plan);
    await r.send(plan);
    const second = JSON.parse(sink.raw[1]!) as ReportBody;
    expect(second.devices.map((d) => [d.udid, d.status])).toEqual([['ODD\ufffdONE', 'AVAILABLE']]);
  });
});
