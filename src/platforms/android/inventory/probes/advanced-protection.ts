import { parseAdvancedProtection, type AdvancedProtection } from '../parsers/advanced-protection.js';
import type { Probe } from './types.js';

// Advanced Protection (Android 16): under it a locked phone takes a new USB
// connection as charge-only, so recovery must not power-cycle its port
// (parsers/advanced-protection.ts). Only a phone of SDK 36 or later runs the
// settings command; an older one prints one line and costs nothing more.
// Slow tier: it changes when someone turns it on or off in Settings.
export const advancedProtection: Probe<AdvancedProtection> = {
  section: 'advanced_protection',
  tier: 'slow',
  command:
    'case "$(getprop ro.build.version.sdk)" in 3[6-9]|[4-9][0-9]) echo sdk:36+; t settings get secure advanced_protection_mode;; *) echo sdk:older;; esac',
  fields: [],
  note: 'Advanced Protection on or off (Android 16), for recovery: feeds no field',
  parse: parseAdvancedProtection,
};
