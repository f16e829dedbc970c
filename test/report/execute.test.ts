import { describe, expect, it } from 'vitest';
import { execute } from '../../src/report/execute.js';
import { STRING_LIMITS } from '../../src/report/field-limits.js';
import { PresenceLedger, type PresenceEntry } from '../../src/devices/presence.js';
import type { DeviceInfo } from '../../src/cloud/types.js';
import type { CollectRequest, DeviceSource } from '../../src/platforms/source.js';
import { systemClock } from '../../src/util/clock.js';
import { captureLogger } from '../log/capture.js';
import { androidPhone, fakeSource } from '../support/devices.js';
import { DeviceRegistry } from '../../src/devices/registry.js';
import type { DeviceFeature } from '../../src/devices/feature.js';

const device = androidPhone;

const source = (devices: DeviceInfo[]): DeviceSource => fakeSource(async () => devices);

const request = { refresh: 'all' } as unknown as CollectRequest;

describe('execute: a source’s devices enter the report path bounded (issue 35)', () => {
  it('clips a long value with a note in the message and one line; leaves out an oversized identity with one line; the rest as they are', async () => {
    const { logger, lines } = captureLogger();
    const plain = device('PLAIN001', { deviceName: 'Lab phone' });
    const out = await execute(
      source([plain, device('LONGNAME', { deviceName: 'N'.repeat(4 * 1024 * 1024), message: 'charging' }), device('U'.repeat(300))]),
      request,
      {
        registry: { list: () => [], get: () => undefined },
        presence: new PresenceLedger(),
        features: [],
        clock: systemClock,
        logger,
        timeoutMs: undefined,
      },
    );
    expect(out.devices.map((d) => d.udid)).toEqual(['PLAIN001', 'LONGNAME']);
    expect(out.devices[0]).toBe(plain);
    const long = out.devices[1]!;
    expect([...long.deviceName!].length).toBeLessThanOrEqual(256);
    expect(long.message).toMatch(/^charging; the phone gave a value longer than the agent sends, clipped: deviceName$/);
    const warned = lines().map((l) => String(l.msg));
    expect(warned.filter((m) => m.includes('device LONGNAME gave values longer than the agent sends (deviceName)'))).toHaveLength(1);
    const left = warned.filter((m) => m.includes('is left out of the report'));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/its udid is 300 characters long, over the limit of 256/);
    expect(left[0]!.length).toBeLessThan(400);
  });

  it("cuts a message the agent's own notes make longer than it sends at a word, and blames no phone for it: only the phone's own strings are said to be", async () => {
    const registry = new DeviceRegistry();
    registry.sync(
      'android',
      new Map([
        ['QUIET001', 'device'],
        ['LOUD0001', 'device'],
      ]),
    );
    // A quarantine's words and its evidence (the agent's own), past the message's limit.
    const words = `quarantined since 12:06Z until 12:26Z (20 min): 3 failures in 10 min, blamed on its phone; evidence: ${'12:00Z inventory failed: the inventory did not finish within 20000 ms; '.repeat(20)}`;
    const features: DeviceFeature[] = [{ name: 'quarantine', notes: () => [words] }];
    const { logger, lines } = captureLogger();
    // The source's word one character longer each time: the limit falls on every place in a word of the notes.
    for (let k = 0; k < 12; k++) {
      const word = `its word${'s'.repeat(k)}`;
      const src = fakeSource(async () => [device('QUIET001', { message: word }), device('LOUD0001', { deviceName: 'N'.repeat(1_000) })]);
      const out = await execute(src, request, { registry, presence: new PresenceLedger(), features, clock: systemClock, logger, timeoutMs: undefined });
      const quiet = out.devices[0]!.message!;
      expect([...quiet].length).toBeLessThanOrEqual(STRING_LIMITS.message);
      // Cut after a whole word, "…" marking it.
      expect(quiet.endsWith('…')).toBe(true);
      expect(`${word}; ${words}`.startsWith(quiet.slice(0, -1))).toBe(true);
      expect(`${word}; ${words}`[quiet.length - 1], quiet.slice(-20)).toBe(' ');
      // The phone that gave a long name is told so, for its name only.
      expect(out.devices[1]!.message).toMatch(/; the phone gave a value longer than the agent sends, clipped: deviceName$/);
    }
    // Said of the phone's name alone (the limiter keeps the lines a minute may hold).
    const said = lines()
      .map((l) => String(l.msg))
      .filter((m) => m.includes('longer than the agent sends'));
    expect(new Set(said)).toEqual(
      new Set(['device LOUD0001 gave values longer than the agent sends (deviceName); they are clipped in its report, state, /metrics and list']),
    );
  });

  it('writes what a source owes of its own to the presence ledger after an answer, as its whole word; ends it when the source fails', async () => {
    const { logger } = captureLogger();
    const presence = new PresenceLedger();
    // Charge control's entry under the same platform's keys is not the source's to replace.
    presence.owe({ kind: 'charge-paused', scope: 'android/S1' }, [{ udid: 'PAUSED01' }], { while: 'paused' });
    const dropped = { kind: 'network-dropped', scope: 'android/10.0.0.5:5555' } as const;
    let owed: PresenceEntry[] = [{ reason: dropped, devices: [{ udid: 'NET00001', why: 'dropped' }], bound: { until: 9_000 } }];
    let fail = false;
    const src = Object.assign(
      fakeSource(async () => {
        if (fail) throw new Error('adb gone');
        return [device('USB00001')];
      }),
      { owes: ['network-dropped'] as const, owed: () => owed },
    );
    const run = () =>
      execute(src, request, {
        registry: { list: () => [], get: () => undefined },
        presence,
        features: [],
        clock: systemClock,
        logger,
        timeoutMs: undefined,
      });
    expect((await run()).devices.map((d) => d.udid)).toEqual(['USB00001']);
    const written = presence.owed().find((e) => e.reason.kind === 'network-dropped')!;
    expect(written.bound).toEqual({ until: 9_000 });
    expect(written.devices).toEqual([{ udid: 'NET00001', why: 'dropped', notes: [] }]);
    // Its next answer owes nothing: the entry ends.
    owed = [];
    await run();
    expect(presence.owed().map((e) => e.reason.kind)).toEqual(['charge-paused']);
    owed = [{ reason: dropped, devices: [{ udid: 'NET00001' }], bound: { until: 9_000 } }];
    await run();
    expect(presence.owed().map((e) => e.reason.kind)).toEqual(['charge-paused', 'network-dropped']);
    // A failure ends it: carried only while the source answers, as its list was.
    fail = true;
    await run();
    expect(presence.owed().map((e) => e.reason.kind)).toEqual(['charge-paused']);
  });

  it('adds the features’ notes after the source’s word, in registration order, to each device the source speaks for, by the record it said it of (owed ones by their scope); none to a device without a record', async () => {
    const registry = new DeviceRegistry();
    registry.sync(
      'android',
      new Map([
        ['USB00001', 'device'],
        ['10.0.0.5:5555', 'device'],
        ['LONGNAME', 'device'],
      ]),
    );
    const features: DeviceFeature[] = [
      { name: 'first', notes: (d, peers) => [`first on ${d.serial} of ${peers.length}`] },
      { name: 'quiet', notes: () => [undefined] },
      { name: 'second', notes: (d) => [`second on ${d.serial}`] },
    ];
    const presence = new PresenceLedger();
    const owed: PresenceEntry[] = [
      { reason: { kind: 'network-dropped', scope: 'android/10.0.0.5:5555' }, devices: [{ udid: 'NET00001', why: 'dropped' }], bound: { until: 9_000 } },
      { reason: { kind: 'network-dropped', scope: 'android/10.0.0.6:5555' }, devices: [{ udid: 'NET00002', why: 'gone' }], bound: { until: 9_000 } },
    ];
    const src = Object.assign(
      fakeSource(async () => [device('USB00001', { message: 'its word' }), device('LONGNAME', { deviceName: 'N'.repeat(1_000) })]),
      { owes: ['network-dropped'] as const, owed: () => owed },
    );
    const { logger } = captureLogger();
    const out = await execute(src, request, { registry, presence, features, clock: systemClock, logger, timeoutMs: undefined });
    expect(out.devices[0]!.message).toBe('its word; first on USB00001 of 3; second on USB00001');
    // The notes come before what execute itself adds (the clipped values).
    expect(out.devices[1]!.message).toBe('first on LONGNAME of 3; second on LONGNAME; the phone gave a value longer than the agent sends, clipped: deviceName');
    const written = presence.owed().flatMap((e) => e.devices.map((d) => [d.why, ...(d.notes ?? [])].join('; ')));
    expect(written).toEqual(['dropped; first on 10.0.0.5:5555 of 3; second on 10.0.0.5:5555', 'gone']);
  });
});
