import { describe, expect, it } from 'vitest';
import { ChargePauses } from '../../../src/hub/charge-pauses.js';
import { chargeBed } from './charge-bed.js';
import { AgentStats } from '../../../src/stats/agent-stats.js';

describe('charge control: the way per phone', () => {
  it("switches each phone's port through its own way, on the way and at stop", async () => {
    const { control, registry, switched, answered } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'model:Model C*=command,UH=uhubctl', DEVICE_AGENT_CHARGE_COMMAND: 'hub-power {hub} {port} {action}' },
      { UC: { hub: '1-1', port: 1 }, UH: { hub: '1-1', port: 2 } },
    );
    answered('SC', 'UC', 95, 'Model C1');
    answered('SH', 'UH', 95, 'Model H');
    control.start();
    await control.settled();
    expect(switched.sort()).toEqual(['command 1-1:1 off', 'uhubctl 1-1:2 off']);
    expect(new ChargePauses(registry).of('SC')?.pause?.way).toBe('command');
    await control.stop();
    expect(switched.slice(2).sort()).toEqual(['command 1-1:1 on', 'uhubctl 1-1:2 on']);
  });
});

describe('charge control: whose port a pause switches (issue 35)', () => {
  it('pauses no port for a phone that gives the udid of the one behind it: neither while both give it, nor the impostor alone elsewhere on the USB tree', async () => {
    const stats = new AgentStats();
    const { control, registry, switched, answered } = chargeBed(
      { DEVICE_AGENT_CHARGE_WAYS: 'VICTIM01=uhubctl' },
      { VICTIM01: { hub: '1-1.4', port: 3 } },
      { stats },
    );
    answered('VICTIM01', 'VICTIM01', 100);
    answered('FAKE0001', 'VICTIM01', 100);
    registry.setUsb(
      'android',
      new Map([
        ['VICTIM01', { usb: '1-1.4.3' }],
        ['FAKE0001', { usb: '1-1.3' }],
      ]),
    );
    control.start();
    await control.settled();
    expect(switched).toEqual([]);
    expect(stats.actionsRefused.get('charge_pause')).toBe(2);

    // The victim unplugged: the impostor alone with its udid is still not behind the port.
    registry.sync('android', new Map([['FAKE0001', 'device']]));
    control.devicesChanged();
    await control.settled();
    expect(switched).toEqual([]);
    await control.stop();
  });
});
