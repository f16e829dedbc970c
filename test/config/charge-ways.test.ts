import { describe, expect, it } from 'vitest';
import { checkChargeWays, checkPortCommand, chargeWayOf, chargeWaysOf } from '../../src/config/charge-ways.js';

describe('charge.ways', () => {
  it('takes ID=WAY and model:PATTERN=WAY, and refuses the rest with why', () => {
    expect(checkChargeWays(['R58M12AB=uhubctl', 'model:SM-S9*=uhubctl', 'model:Pixel 8 Pro=off'])).toBeUndefined();
    expect(checkChargeWays(['R58 M12AB=uhubctl'])).toMatch(/must be ID=WAY/);
    expect(checkChargeWays(['R58M12AB=battery'])).toMatch(/the way must be one of off, uhubctl, command, samsung/);
    expect(checkChargeWays(['R58M12AB=samsung', 'model:SM-*=samsung'])).toBeUndefined();
    expect(checkChargeWays(['R58M12AB=command'])).toBeUndefined();
    expect(checkChargeWays(['=uhubctl'])).toMatch(/must be ID=WAY/);
  });

  it("prefers a phone's own entry, then the first model that matches, else off", () => {
    const ways = chargeWaysOf(['model:SM-S9*=uhubctl', 'model:sm-*=off', 'R58EXCEPT=off', '127.0.0.1:5555=uhubctl']);
    expect(chargeWayOf(ways, { serial: 'X', model: 'SM-S936B' })).toBe('uhubctl');
    expect(chargeWayOf(ways, { serial: 'X', model: 'SM-A546B' })).toBe('off');
    expect(chargeWayOf(ways, { serial: 'R58EXCEPT', model: 'SM-S936B' })).toBe('off');
    expect(chargeWayOf(ways, { udid: 'U', serial: '127.0.0.1:5555', model: 'Pixel 8' })).toBe('uhubctl');
    expect(chargeWayOf(ways, { serial: 'X' })).toBe('off');
    expect(chargeWayOf(chargeWaysOf(['model:Pixel 8*=uhubctl']), { serial: 'X', model: 'Pixel 8 Pro' })).toBe('uhubctl');
    // A pattern's dots are dots, not any character.
    expect(chargeWayOf(chargeWaysOf(['model:a.b=uhubctl']), { serial: 'X', model: 'axb' })).toBe('off');
  });

  it('takes a port command that names the port and the action', () => {
    expect(checkPortCommand('')).toBeUndefined();
    expect(checkPortCommand('hub-power {hub} {port} {action}')).toBeUndefined();
    expect(checkPortCommand('hub-power {hub} {action}')).toMatch(/must name \{port\}/);
    expect(checkPortCommand('hub-power {hub}:{port}')).toMatch(/must name \{action\}/);
  });
});
