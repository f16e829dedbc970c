import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../src/devices/registry.js';
import { RecoveryPolicy, defaultRecoverySettings } from '../../src/recovery/recovery-policy.js';
import { recoveryState } from '../../src/recovery/recovery.js';

describe('recoveryState', () => {
  it('a phone offline because charge control holds its port off is neither reconnected nor power-cycled, and its offline run ends', () => {
    const registry = new DeviceRegistry();
    const policy = new RecoveryPolicy({ ...defaultRecoverySettings, powerCycle: true }, []);
    const look = (charge: Parameters<typeof recoveryState>[1], now: number) => {
      const state = recoveryState('offline', charge);
      registry.escalations.listed([{ serial: 'R58M1', state }], now);
      const d = { serial: 'R58M1', state, hubPort: { hub: '1-1', port: 1 }, escalation: registry.escalations.of('R58M1') };
      return policy.tick([d], now).map((a) => a.kind);
    };
    const pause = { pause: undefined, switching: 'off' as const };
    const cool = defaultRecoverySettings.offlineCooldownMs;
    for (let t = 0; t < 10; t++) expect(look(pause, t * cool)).toEqual([]);
    expect(registry.escalations.of('R58M1')).toBeUndefined();
    // Without the pause the same phone is reconnected at once.
    expect(look(undefined, 10 * cool)).toEqual(['reconnect-offline']);
    expect(recoveryState('device', pause)).toBe('device');
  });
});
