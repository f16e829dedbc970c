import type { PlatformName } from '../source.js';
import { IOS_PLATFORM } from './inventory.js';

/** iOS's names: what its inventories say to the cloud, and what `list` and /metrics show. */
export const IOS_NAME: PlatformName = { platformName: IOS_PLATFORM, shown: 'iOS', phones: 'iPhones' };
