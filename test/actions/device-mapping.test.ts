import { describe, expect, it } from 'vitest';
import { DeviceMapping } from '../../src/actions/device-mapping.js';
import { chargeWaysOf } from '../../src/config/charge-ways.js';
import type { Claim } from '../../src/devices/claims.js';
import { captureLogger } from '../log/capture.js';

const FIRST = '127.0.0.1:5601';
const first: Claim = { serial: FIRST, udid: 'FIRST01', ready: true };
const second: Claim = { serial: '127.0.0.1:5602', udid: FIRST, ready: true };

function mapping(networkDevices: string[] = []) {
  const { logger, lines } = captureLogger();
  const m = new DeviceMapping({
    hubPorts: new Map([[FIRST, { hub: '1-1.4', port: 4 }]]),
    chargeWays: chargeWaysOf([`${FIRST}=uhubctl`, 'model:*=samsung']),
    networkDevices,
    logger,
  });
  return { m, conflictLines: () => lines().filter((l) => /names two phones/.test(String(l.msg))) };
}

describe('DeviceMapping: the one look-up of a port and a charge way (issue 42)', () => {
  it('refuses the port and the way of both phones through a key that is one’s serial and the other’s udid, and says so once, naming both and the names to map by', () => {
    const { m, conflictLines } = mapping();
    for (let i = 0; i < 3; i++)
      for (const c of [first, second]) {
        expect(m.portOf(c, [first, second]).kind).toBe('refused');
        // Refused, not the model rule: the key may name an exception.
        expect(m.wayOf(c, [first, second], 'SM-S936B').kind).toBe('refused');
      }
    expect(conflictLines()).toHaveLength(1);
    expect(String(conflictLines()[0]!.msg)).toBe(
      `the key ${FIRST} in hubPorts and charge.ways names two phones: ${FIRST} (udid FIRST01) by its adb serial, and 127.0.0.1:5602 by the udid it gives; ` +
        `no hub port is switched and no charge way applied through it for either. Map the phone you mean by a name no other device gives: ` +
        `FIRST01 (the udid of ${FIRST}) or 127.0.0.1:5602 (the adb serial of the phone giving ${FIRST} as its udid)`,
    );
    // The first phone alone is its key's again; the conflict coming back is said again.
    expect(m.portOf(first, [first])).toMatchObject({ kind: 'mapped', value: { hub: '1-1.4', port: 4 } });
    expect(m.portOf(second, [first, second]).kind).toBe('refused');
    expect(conflictLines()).toHaveLength(2);
  });

  it('counts an address the agent connects as that phone’s serial before adb lists it: a device giving it as udid gets nothing', () => {
    const { m, conflictLines } = mapping([FIRST]);
    expect(m.portOf(second, [second])).toMatchObject({ kind: 'refused', names: { kind: 'serial_and_udid', serial: FIRST } });
    expect(String(conflictLines()[0]!.msg)).toMatch(/127\.0\.0\.1:5601 \(a network device the agent connects, not on adb yet\) by its adb serial/);
    // Without the setting, the lone device was trusted with the key.
    expect(mapping().m.portOf(second, [second]).kind).toBe('mapped');
  });

  it('says the conflict of an address the agent connects once, as it comes on adb and goes off again; once more after the other phone left and came back', () => {
    const { m, conflictLines } = mapping([FIRST]);
    for (const listed of [[second], [first, second], [second], [first, second]]) expect(m.portOf(second, listed).kind).toBe('refused');
    expect(conflictLines()).toHaveLength(1);
    // The phone giving the address as its udid leaves: the conflict has ended, and coming back it is said again.
    expect(m.portOf(first, [first])).toMatchObject({ kind: 'mapped' });
    expect(m.portOf(second, [first, second]).kind).toBe('refused');
    expect(conflictLines()).toHaveLength(2);
  });

  it('says the conflict of a phone on USB again when it left adb and came back', () => {
    const usb: Claim = { serial: 'R58M123', udid: 'R58M999', ready: true };
    const giver: Claim = { serial: '127.0.0.1:5603', udid: 'R58M123', ready: true };
    const { logger, lines } = captureLogger();
    const m = new DeviceMapping({ hubPorts: new Map([['R58M123', { hub: '1-1', port: 2 }]]), logger });
    const said = () => lines().filter((l) => /names two phones/.test(String(l.msg))).length;
    m.portOf(usb, [usb, giver]);
    m.portOf(usb, [usb, giver]);
    expect(said()).toBe(1);
    expect(m.portOf(giver, [giver]).kind).toBe('mapped');
    m.portOf(usb, [usb, giver]);
    expect(said()).toBe(2);
  });
});
