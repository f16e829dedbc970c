import { describe, expect, it } from 'vitest';
import { DeviceRegistry } from '../../../src/devices/registry.js';
import { PERSON } from '../../../src/devices/verdicts.js';
import { personNotes } from '../../../src/features/recovery/notes.js';
import { androidPhone } from '../../support/devices.js';

// Recovery's call for a person lands on the phone the report names: a network phone back on a new connection that has
// not answered on it yet is reported as the phone last identified at its address, and so is its call.

describe("recovery's call for a person", () => {
  it('on a network phone whose new connection has not answered: the phone last identified at the address, not the address', () => {
    const registry = new DeviceRegistry();
    const key = 'android/10.0.0.7:5555';
    const listed = (on: boolean) => registry.sync('android', new Map(on ? [['10.0.0.7:5555', 'device']] : []));
    listed(true);
    registry.readings.answered(key, androidPhone('NET00001'), 0, 0);
    listed(false);
    listed(true);
    expect(registry.get(key)?.udid).toBeUndefined();
    const notes = personNotes(registry);
    notes.set(key, 'needs a person: it did not come back');
    expect(registry.timeline.verdictBy('NET00001', PERSON)?.words).toBe('needs a person: it did not come back');
    expect(registry.timeline.verdictsOf('10.0.0.7:5555')).toEqual([]);
    expect(notes.get(key)).toBe('needs a person: it did not come back');
    notes.delete(key);
    expect(registry.timeline.verdictsOf('NET00001')).toEqual([]);
  });
});
