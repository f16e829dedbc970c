import { describe, expect, it } from 'vitest';
import { ChargePauses } from '../../src/hub/charge-pauses.js';
import { chargeBed } from './charge-bed.js';

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
