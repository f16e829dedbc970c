// What the iOS platform offers the wear feature (the capability of
// src/platforms/wear.ts): the battery wear the diagnostics relay gave in the
// current connection's last slow read (diagnostics.ts), which the source
// keeps as a facet of the connection. Opens no session.
import { facetKey } from '../../devices/facet.js';
import type { WearReader, WearReading } from '../wear.js';

/** The iOS source's facet: the wear its last slow read of the connection gave; a replug reads it again. */
export const IOS_WEAR = facetKey<WearReading>('ios-wear', 'connection');

export const IOS_WEAR_READER: WearReader = {
  reading: (registry, key) => registry.facet(IOS_WEAR).get(key),
};
