import type { PlatformName } from '../source.js';

/** Android's names: what its inventories say to the cloud, and what `list` and /metrics show. */
export const ANDROID_NAME: PlatformName = { platformName: 'ANDROID', shown: 'Android', versionLabel: 'android' };
