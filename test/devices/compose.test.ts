import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX_CHARS } from '../../src/cloud/device-message.js';
import { withVerdicts } from '../../src/devices/compose.js';
import { androidPhone } from '../support/devices.js';

// The composer joins the verdicts' words after the field limits were applied to what the source and the features said
// (src/report/execute.ts): the message it makes is still within its limit, the verdicts' words kept whole at its head.

describe('withVerdicts', () => {
  it('leads a message already at its limit with the words, and keeps the whole within the limit, cut at a word', () => {
    const full = `${'slow '.repeat(MESSAGE_MAX_CHARS / 5 - 1)}end`;
    expect([...full].length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    const words = 'quarantined since 12:00Z until 12:20Z (20 min): 3 failures in 10 min, blamed on its phone';
    const out = withVerdicts({ ...androidPhone('P1'), message: full }, [
      { out: { state: 'quarantined', layer: 'phone' }, unavailable: true, appiumOff: true, words },
    ]);
    expect(out.status).toBe('UNAVAILABLE');
    expect(out.message!.startsWith(`${words}; slow `)).toBe(true);
    expect([...out.message!].length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
    expect(out.message!.endsWith('slow…')).toBe(true);
  });

  it('leaves a phone with no verdict words as it was', () => {
    const phone = { ...androidPhone('P1'), message: 'its word' };
    expect(withVerdicts(phone, [{ out: { state: 'needs_person', layer: 'readiness' }, appiumOff: true }]).message).toBe('its word');
  });
});
