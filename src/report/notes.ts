// What the features say of a device its source speaks for: each feature's notes hook, in registration order, joins the
// device's message after its source's word, so that no source is handed a feature. The verdicts' words join later, as the
// report folds them (src/devices/compose.ts).
import type { DeviceFeature } from '../devices/feature.js';
import type { Platform } from '../devices/record.js';
import type { DeviceRegistry } from '../devices/registry.js';

/** The notes of each of the source's devices, by record key; `peers`, the records it lists now. A device with no record gets none. */
export function notesOf(platform: Platform, o: { registry: Pick<DeviceRegistry, 'list' | 'get'>; features: readonly DeviceFeature[] }) {
  const peers = o.registry.list(platform);
  return (key: string) => {
    const record = o.registry.get(key);
    if (!record) return [];
    const notes: string[] = [];
    for (const f of o.features) for (const note of f.notes?.(record, peers) ?? []) if (note) notes.push(note);
    return notes;
  };
}
