// Finding a wireless-debugging phone again on its new port through mdns, and
// never on a name's word alone: the named cases, then invariants over
// generated sequences of announcements and answers.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MdnsService } from '../../../src/platforms/android/adb/mdns.js';
import { FOLLOW_MS, MAX_CONNECTS, MdnsFollow, RETRY_MS, type NetworkRecord } from '../../../src/platforms/android/mdns-follow.js';
import { propertyRuns } from '../../support/property-runs.js';

const NAME = 'adb-1A2B3C4D-QXjCrW';
const svc = (address: string, instance = NAME, type: MdnsService['type'] = 'adb-tls-connect'): MdnsService => ({ instance, type, address });
const at = (address: string, udid?: string, ready = true): NetworkRecord => ({ address, ready, ...(udid ? { udid } : {}) });

/** A follower that learned NAME as phone U1 at .10:37001. */
function learnedOne(): MdnsFollow {
  const f = new MdnsFollow();
  expect(f.step([svc('192.168.1.10:37001')], [at('192.168.1.10:37001', 'U1')], 0)).toEqual([]);
  expect(f.learned.get(NAME)).toEqual({ udid: 'U1', address: '192.168.1.10:37001' });
  return f;
}

describe('following a wireless-debugging phone through mdns', () => {
  it('rebooted onto a new port: connected there, and found when it says it is the same phone', () => {
    const f = learnedOne();
    // Gone from its address; its name announced on a new port.
    expect(f.step([svc('192.168.1.10:41235')], [], 1000)).toEqual([
      { kind: 'connect', address: '192.168.1.10:41235', instance: NAME, udid: 'U1', from: '192.168.1.10:37001' },
    ]);
    // adb lists the address; not identified yet: nothing more.
    expect(f.step([svc('192.168.1.10:41235')], [at('192.168.1.10:41235')], 2000)).toEqual([]);
    expect(f.step([svc('192.168.1.10:41235')], [at('192.168.1.10:41235', 'U1')], 3000)).toEqual([
      { kind: 'found', address: '192.168.1.10:41235', instance: NAME, udid: 'U1' },
    ]);
    expect(f.learned.get(NAME)).toEqual({ udid: 'U1', address: '192.168.1.10:41235' });
  });

  it('a forged name: the device at its address answers as another phone: disconnected, not followed there again for the hour', () => {
    const f = learnedOne();
    f.step([svc('10.0.0.66:5555')], [], 1000);
    expect(f.step([svc('10.0.0.66:5555')], [at('10.0.0.66:5555', 'EVIL')], 2000)).toEqual([
      { kind: 'refuse', address: '10.0.0.66:5555', instance: NAME, udid: 'U1', answered: 'EVIL' },
    ]);
    expect(f.learned.get(NAME)).toEqual({ udid: 'U1', address: '192.168.1.10:37001' });
    expect(f.step([svc('10.0.0.66:5555')], [], 2000 + RETRY_MS * 10)).toEqual([]);
  });

  it('the learned name announced elsewhere while the phone is ready: not followed (a forged twin takes nothing)', () => {
    const f = learnedOne();
    expect(f.step([svc('192.168.1.10:37001'), svc('10.0.0.66:5555')], [at('192.168.1.10:37001', 'U1')], 1000)).toEqual([]);
    expect(f.step([svc('10.0.0.66:5555')], [at('192.168.1.10:37001', 'U1')], 2000)).toEqual([]);
  });

  it("a name claiming another phone's serial (adb-<USB serial>-x) is never learned nor followed: the serial in it is not read", () => {
    const f = new MdnsFollow();
    expect(f.step([svc('10.0.0.66:5555', 'adb-R5CY743GDFY-abcdef')], [at('R5CY743GDFY', 'R5CY743GDFY')], 0)).toEqual([]);
    expect(f.learned.size).toBe(0);
  });

  it("a name learned for one phone and announced by another ready one: still the first's", () => {
    const f = learnedOne();
    f.step([svc('10.0.0.66:5555')], [at('192.168.1.10:37001', 'U1'), at('10.0.0.66:5555', 'EVIL')], 1000);
    expect(f.learned.get(NAME)).toEqual({ udid: 'U1', address: '192.168.1.10:37001' });
  });

  it('a lost phone whose name is announced at two addresses: followed to neither, said', () => {
    const f = learnedOne();
    expect(f.step([svc('192.168.1.10:41235'), svc('10.0.0.66:5555')], [], 1000)).toEqual([
      { kind: 'ambiguous', instance: NAME, addresses: ['10.0.0.66:5555', '192.168.1.10:41235'] },
    ]);
  });

  it('a connect that fails is tried again after the retry, never before; a device that never answers is let go', () => {
    const f = learnedOne();
    expect(f.step([svc('192.168.1.10:41235')], [], 1000)).toHaveLength(1);
    f.connectFailed('192.168.1.10:41235');
    expect(f.step([svc('192.168.1.10:41235')], [], 1000 + RETRY_MS - 1)).toEqual([]);
    expect(f.step([svc('192.168.1.10:41235')], [], 1000 + RETRY_MS)).toMatchObject([{ kind: 'connect' }]);
    const t = 1000 + RETRY_MS;
    expect(f.step([svc('192.168.1.10:41235')], [at('192.168.1.10:41235', undefined, false)], t + FOLLOW_MS)).toMatchObject([
      { kind: 'refuse', address: '192.168.1.10:41235' },
    ]);
  });

  it('on generated sequences: never a connect while the phone is ready, only to an address its name is announced at alone, at most once per retry window and MAX_CONNECTS a step, and a phone found only by its own udid', () => {
    const addresses = ['10.0.0.1:5555', '10.0.0.2:5555', '192.168.1.10:41235', '192.168.1.10:37001'];
    const step = fc.record({
      names: fc.subarray(
        addresses.flatMap((a) => [svc(a), svc(a, 'adb-OTHER-zzz')]),
        { maxLength: 4 },
      ),
      records: fc.subarray(
        addresses.flatMap((a) => [at(a, 'U1'), at(a, 'U2'), at(a), at(a, 'U1', false)]),
        { maxLength: 3 },
      ),
      gap: fc.integer({ min: 0, max: 60_000 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const f = new MdnsFollow();
        let now = 0;
        const lastConnect = new Map<string, number>();
        for (const s of steps) {
          now += s.gap;
          // adb lists one device per address.
          const records = [...new Map(s.records.map((r) => [r.address, r])).values()];
          const acts = f.step(s.names, records, now);
          const readyUdids = new Set(records.filter((r) => r.ready && r.udid).map((r) => r.udid));
          const connects = acts.filter((a) => a.kind === 'connect');
          if (connects.length > MAX_CONNECTS) return false;
          for (const a of acts) {
            if (a.kind === 'connect') {
              if (readyUdids.has(a.udid)) return false;
              const where = s.names.filter((n) => n.instance === a.instance).map((n) => n.address);
              if (new Set(where).size !== 1 || where[0] !== a.address) return false;
              const last = lastConnect.get(a.address);
              if (last !== undefined && now - last < RETRY_MS) return false;
              lastConnect.set(a.address, now);
            }
            if (a.kind === 'found' && records.find((r) => r.address === a.address)?.udid !== a.udid) return false;
          }
        }
        return true;
      }),
      propertyRuns(600),
    );
  });
});
