// The Android platform's readiness reader: the readiness sections and build fingerprint its inventory already read on
// the current connection, from the tier cache; it opens no session.
import type { ReadinessReader } from '../readiness.js';
import { parseReadiness } from './inventory/parsers/readiness.js';
import { READINESS_PROBES } from './inventory/probes/readiness.js';
import { cachedProp, cachedSection } from './inventory/tier-store.js';
import { FINGERPRINT_KEYS } from './inventory/identity.js';
import { ANDROID_NAME } from './name.js';

export const ANDROID_READINESS: ReadinessReader = {
  platformName: ANDROID_NAME.platformName,
  buildName: (release, id) => `Android ${release}${id !== undefined ? ` (${id})` : ''}`,
  reading: (registry, key) => {
    const texts = READINESS_PROBES.map((probe) => cachedSection(registry, key, probe.section));
    return texts.every((t) => t === undefined) ? undefined : parseReadiness(texts.join('\n'));
  },
  fingerprint: (registry, key) => FINGERPRINT_KEYS.map((name) => cachedProp(registry, key, name)?.trim()).find(Boolean),
};
