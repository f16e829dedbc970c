import type { Platform } from './record.js';

/**
 * What a platform hands the actions to reach its phones (its control, in
 * its folder of src/platforms/): it carries the platform, so that an action
 * lists and keys the devices it acts on by what it was handed, never by a
 * platform's name.
 */
export interface PhoneControl {
  readonly platform: Platform;
}
