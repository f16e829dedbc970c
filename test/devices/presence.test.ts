import { describe, expect, it } from 'vitest';
import { carry, PresenceLedger, worded, type OwedDevice, type PresenceEntry } from '../../src/devices/presence.js';
import { androidPhone as phone } from '../support/devices.js';

const failed = (scope: string) => ({ kind: 'source-failed', scope }) as const;
const paused = (scope: string) => ({ kind: 'charge-paused', scope }) as const;
const owed = (udid: string, why?: string): OwedDevice => ({ udid, ...(why !== undefined && { why }) });
/** The last inventories, as the readings keep them: the ledger holds none. */
const inventories = new Map(['A', 'B', 'C'].map((u) => [u, phone(u, { message: `${u} cut short`, batteryDetail: { observedAtMs: 1 } })]));
const inventoryOf = (d: OwedDevice) => inventories.get(d.udid);

describe('presence ledger: which owed devices a report carries, why, until when (issue 41)', () => {
  it("carries an owed device the report does not hold, with its last inventory, its writer's words and its reason; never one it holds", () => {
    const entries: PresenceEntry[] = [{ reason: failed('android'), devices: [{ udid: 'A', notes: ['adb failed'] }, owed('B')], bound: { while: 'adb fails' } }];
    const { carried, expired } = carry(entries, [phone('B')], 0, inventoryOf);
    expect(carried).toEqual([{ info: { ...inventories.get('A'), message: 'A cut short; adb failed' }, reason: failed('android') }]);
    expect(expired).toEqual([]);
  });

  it('leaves out an owed device whose last inventory nobody knows', () => {
    const ledger = new PresenceLedger();
    ledger.owe(failed('android'), [owed('A'), owed('Z')], { while: 'adb fails' });
    expect(ledger.report([], 0, inventoryOf).carried.map((c) => c.info.udid)).toEqual(['A']);
  });

  it("words a device its writer holds off its source from nothing, without the agent's battery detail, and one a source owes over its reading", () => {
    const inventory = inventories.get('A')!;
    const off = worded(inventory, { udid: 'A', says: { state: 'no device', status: 'UNAVAILABLE' }, why: 'off adb' }, { kind: 'off-source', scope: 'usb' });
    expect(off).toEqual({ ...phone('A'), state: 'no device', status: 'UNAVAILABLE', message: 'off adb' });
    const dropped = worded(
      inventory,
      { udid: 'A', says: { status: 'UNAVAILABLE' }, why: 'link dropped', notes: ['held'] },
      { kind: 'network-dropped', scope: 'android/A' },
    );
    expect(dropped).toEqual({ ...inventory, status: 'UNAVAILABLE', message: 'link dropped; held' });
  });

  it('drops an entry at its bound on the injected clock: carried before, not at or after', () => {
    const ledger = new PresenceLedger();
    ledger.owe(paused('android/S1'), [owed('A')], { until: 1_000 });
    expect(ledger.report([], 999, inventoryOf).carried.map((c) => c.info.udid)).toEqual(['A']);
    expect(ledger.report([], 1_000, inventoryOf)).toMatchObject({ carried: [], expired: [{ reason: paused('android/S1') }] });
    expect(ledger.owed()).toEqual([]);
  });

  it('carries a device once when two reasons owe it: the earlier reason in PRESENCE_ORDER wins, whatever the writing order', () => {
    const ledger = new PresenceLedger();
    ledger.owe({ kind: 'off-source', scope: 'A' }, [owed('A', 'on USB')], { while: 'on a port' });
    ledger.owe(paused('android/A'), [owed('A', 'paused')], { until: 10 });
    expect(ledger.report([], 0, inventoryOf).carried).toEqual([{ info: { ...phone('A'), message: 'paused' }, reason: paused('android/A') }]);
  });

  it('a writer replaces its whole word for a reason and scope, and ends it by owing nothing or with end()', () => {
    const ledger = new PresenceLedger();
    ledger.owe(failed('android'), [owed('A'), owed('B')], { while: 'adb fails' });
    ledger.owe(failed('android'), [owed('B')], { while: 'adb fails' });
    ledger.owe(failed('ios'), [owed('C')], { while: 'usbmuxd fails' });
    expect(ledger.report([], 0, inventoryOf).carried.map((c) => c.info.udid)).toEqual(['B', 'C']);
    ledger.owe(failed('android'), [], { while: 'adb fails' });
    ledger.end(failed('ios'));
    expect(ledger.report([], 0, inventoryOf).carried).toEqual([]);
  });
});
