// The prober's tier caches as a facet of the registry's records, dropped with the connection, so an inventory reaches
// only the connection it started on. Features read the inventory's own session's sections here rather than open one.
import type { DeviceRegistry } from '../../../devices/registry.js';
import { facetKey } from '../../../devices/facet.js';
import { recordKey } from '../../../devices/record.js';
import type { TierCache, TierCacheStore } from './probe.js';

const PLATFORM = 'android';

/** The prober's tier cache of each connection: its readings say nothing of the next one. */
const TIER_CACHE = facetKey<TierCache>('android-tier-cache', 'connection');

/** The prober's tier caches in the registry's records, each reachable only from the connection it was read on. */
export function registryTierStore(registry: DeviceRegistry): TierCacheStore {
  const caches = registry.facet(TIER_CACHE);
  // The record's key while the connection is its current one (any, when none is named), else '' (no record has it).
  const at = (serial: string, connection: number | undefined) => {
    const key = recordKey(PLATFORM, serial);
    return (connection === undefined ? registry.get(key) !== undefined : registry.isCurrent(key, connection)) ? key : '';
  };
  return {
    get: (serial, connection) => caches.get(at(serial, connection)),
    set: (serial, cache, connection) => {
      const key = at(serial, connection);
      if (key) caches.set(key, cache);
    },
    delete: (serial, connection) => caches.delete(at(serial, connection)),
  };
}

/** The last good text of a cached section of the device's current connection (readiness reads its section). */
export function cachedSection(registry: Pick<DeviceRegistry, 'facet'>, key: string, section: string) {
  return registry.facet(TIER_CACHE).get(key)?.sections.get(section);
}

/** A declared property of the current connection's cached dump (readiness reads the build fingerprint for an OTA). */
export function cachedProp(registry: Pick<DeviceRegistry, 'facet'>, key: string, name: string) {
  return registry.facet(TIER_CACHE).get(key)?.props?.[name];
}
