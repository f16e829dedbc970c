import { describe, expect, it } from 'vitest';
import { carry, PresenceLedger, type PresenceEntry } from '../../src/devices/presence.js';
import { androidPhone as phone } from '../support/devices.js';

const failed = (scope: string) => ({ kind: 'source-failed', scope }) as const;
const paused = (scope: string) => ({ kind: 'charge-paused', scope }) as const;

describe('presence ledger: which owed devices a report carries, why, until when (issue 41)', () => {
  it('carries an owed device the report does not hold, with its inventory and reason; never one it holds', () => {
    const entries: PresenceEntry[] = [
      { reason: failed('android'), devices: [phone('A', { message: 'last known' }), phone('B')], bound: { while: 'adb fails' } },
    ];
    const { carried, expired } = carry(entries, [phone('B')], 0);
    expect(carried).toEqual([{ info: phone('A', { message: 'last known' }), reason: failed('android') }]);
    expect(expired).toEqual([]);
  });

  it('drops an entry at its bound on the injected clock: carried before, not at or after', () => {
    const ledger = new PresenceLedger();
    ledger.owe(paused('android/S1'), [phone('A')], { until: 1_000 });
    expect(ledger.report([], 999).carried.map((c) => c.info.udid)).toEqual(['A']);
    expect(ledger.report([], 1_000)).toMatchObject({ carried: [], expired: [{ reason: paused('android/S1') }] });
    expect(ledger.owed()).toEqual([]);
  });

  it('carries a device once when two reasons owe it: the earlier reason in PRESENCE_ORDER wins, whatever the writing order', () => {
    const ledger = new PresenceLedger();
    ledger.owe({ kind: 'off-source', scope: 'A' }, [phone('A', { message: 'on USB' })], { while: 'on a port' });
    ledger.owe(paused('android/A'), [phone('A', { message: 'paused' })], { until: 10 });
    expect(ledger.report([], 0).carried).toEqual([{ info: phone('A', { message: 'paused' }), reason: paused('android/A') }]);
  });

  it('a writer replaces its whole word for a reason and scope, and ends it by owing nothing or with end()', () => {
    const ledger = new PresenceLedger();
    ledger.owe(failed('android'), [phone('A'), phone('B')], { while: 'adb fails' });
    ledger.owe(failed('android'), [phone('B')], { while: 'adb fails' });
    ledger.owe(failed('ios'), [phone('C')], { while: 'usbmuxd fails' });
    expect(ledger.report([], 0).carried.map((c) => c.info.udid)).toEqual(['B', 'C']);
    ledger.owe(failed('android'), [], { while: 'adb fails' });
    ledger.end(failed('ios'));
    expect(ledger.report([], 0).carried).toEqual([]);
  });
});
