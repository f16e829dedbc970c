// What the features say of a device its source speaks for (a hold, a
// person needed, a protection that did not take, an identity in conflict):
// each feature's notes hook, in registration order (src/agent/features.ts),
// joins the device's message after its source's word, by the record the
// source said it of, so that no source is handed a feature.
import type { DeviceFeature } from '../devices/feature.js';
import type { Platform } from '../devices/record.js';
import type { DeviceRegistry } from '../devices/registry.js';

/**
 * The notes of each device of the platform's source, by the key of the
 * record it was said of (a listed device, or one the source owes); `peers`
 * are the records the same source lists now (a note about identity needs
 * them). A device with no record (a remembered network phone adb does not
 * list) gets none.
 */
export function notesOf(
  platform: Platform,
  o: { registry: Pick<DeviceRegistry, 'list' | 'get'>; features: readonly DeviceFeature[] },
): (key: string) => string[] {
  const peers = o.registry.list(platform);
  return (key) => {
    const record = o.registry.get(key);
    if (!record) return [];
    const notes: string[] = [];
    for (const f of o.features) for (const note of f.notes?.(record, peers) ?? []) if (note) notes.push(note);
    return notes;
  };
}
