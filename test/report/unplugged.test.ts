import { describe, expect, it } from 'vitest';
import { UnpluggedLedger } from '../../src/report/unplugged.js';
import type { DeviceInfo } from '../../src/cloud/types.js';

const info = (udid: string, extra: Partial<DeviceInfo> = {}): DeviceInfo => ({
  udid,
  serialNumber: udid,
  state: 'device',
  status: 'AVAILABLE',
  platformName: 'ANDROID',
  modelName: 'Pixel 8',
  isAndroid: true,
  isIos: false,
  ...extra,
});

describe('UnpluggedLedger', () => {
  it('reports the devices an earlier run reported and that are not back as UNPLUGGED, once', () => {
    const ledger = new UnpluggedLedger();
    ledger.seed([info('A'), info('GONE')]);
    const first = ledger.compose([info('A'), info('NEW')]);
    expect(first.map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE', 'NEW:AVAILABLE', 'GONE:UNPLUGGED']);
    ledger.delivered(first);
    expect(ledger.current.map((d) => d.udid)).toEqual(['A', 'NEW']);
    expect(ledger.compose([info('A'), info('NEW')]).map((d) => d.udid)).toEqual(['A', 'NEW']);
  });

  it('right after adb (re)connects, calls gone only a device seen since then; the others wait for the list to be complete', () => {
    const ledger = new UnpluggedLedger();
    ledger.delivered(ledger.compose([info('A'), info('B'), info('C')]));
    ledger.sourceConnected();
    // Only A is listed again so far; B and C may still be enumerating.
    const early = ledger.compose([info('A'), info('B')], false);
    expect(early.map((d) => d.udid)).toEqual(['A', 'B']);
    ledger.delivered(early, false);
    // B, seen since the reconnection, is unplugged: that is news at once.
    const unplug = ledger.compose([info('A')], false);
    expect(unplug.map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE', 'B:UNPLUGGED']);
    ledger.delivered(unplug, false);
    // C alone waits for adb's list to settle.
    expect(ledger.awaitingSettle).toBe(true);
    // The list is complete now: C did not come back.
    const settled = ledger.compose([info('A')]);
    expect(settled.map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE', 'C:UNPLUGGED']);
    ledger.delivered(settled);
    expect(ledger.awaitingSettle).toBe(false);
  });

  it('marks nobody gone while adb has not listed its devices, and forgets nobody either', () => {
    const ledger = new UnpluggedLedger();
    ledger.seed([info('A'), info('B')]);
    const blind = ledger.compose([], false);
    expect(blind).toEqual([]);
    ledger.delivered(blind, false);
    expect(ledger.current.map((d) => d.udid)).toEqual(['A', 'B']);
    // adb answers: B is really gone.
    expect(ledger.compose([info('A')]).map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE', 'B:UNPLUGGED']);
  });

  it('reports a device that left once as UNPLUGGED, with its last known fields, then leaves it out', () => {
    const ledger = new UnpluggedLedger();
    ledger.delivered(ledger.compose([info('A'), info('B')]));
    const next = ledger.compose([info('A')]);
    expect(next).toEqual([info('A'), { ...info('B'), status: 'UNPLUGGED', state: 'unplugged' }]);
    ledger.delivered(next);
    expect(ledger.compose([info('A')])).toEqual([info('A')]);
  });

  it('keeps owing the UNPLUGGED record until a report carrying it is delivered', () => {
    const ledger = new UnpluggedLedger();
    ledger.delivered(ledger.compose([info('A'), info('B')]));
    const failed = ledger.compose([info('A')]);
    expect(failed.map((d) => d.status)).toEqual(['AVAILABLE', 'UNPLUGGED']);
    // not delivered: the next report still carries it
    expect(ledger.compose([info('A')]).map((d) => d.status)).toEqual(['AVAILABLE', 'UNPLUGGED']);
  });

  it('forgets the debt when the device comes back first', () => {
    const ledger = new UnpluggedLedger();
    ledger.delivered(ledger.compose([info('A'), info('B')]));
    ledger.compose([info('A')]);
    expect(ledger.compose([info('A'), info('B')])).toEqual([info('A'), info('B')]);
  });

  it('holds back a debt from before adb (re)connected while absence cannot call the device gone: it may be back on its port, off adb', () => {
    const ledger = new UnpluggedLedger();
    ledger.delivered(ledger.compose([info('A'), info('B')]));
    // B is unplugged; the report that says so does not reach the cloud.
    expect(ledger.compose([info('A')]).map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE', 'B:UNPLUGGED']);
    // adb restarts, B is plugged again and its debugging goes off before any report saw it (the chaos soak's seed 18):
    // nothing can tell yet that B is gone.
    ledger.sourceConnected();
    expect(ledger.compose([info('A')], false).map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE']);
    expect(ledger.compose([info('A')], true, true).map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE']);
    // adb's list is complete and B is not on it: still owed.
    expect(ledger.compose([info('A')]).map((d) => `${d.udid}:${d.status}`)).toEqual(['A:AVAILABLE', 'B:UNPLUGGED']);
  });

  it('drops the message of a device that was not ready', () => {
    const ledger = new UnpluggedLedger();
    ledger.delivered(ledger.compose([info('A', { state: 'unauthorized', status: 'UNAVAILABLE', message: 'accept the prompt' })]));
    const [gone] = ledger.compose([]);
    expect(gone).toMatchObject({ udid: 'A', status: 'UNPLUGGED' });
    expect(gone).not.toHaveProperty('message');
  });
});
