// The readiness facts of an iPhone, from what the inventory's lockdown session read, plus one GetValue of the amfi
// domain. Pure. A fact lockdown did not give is left out, so its check is unknown, never failed.
// - paired: the phone took the host's pair record (StartSession succeeded); "false" when lockdown refuses a session.
// - developerMode: amfi's `DeveloperModeStatus`, as pymobiledevice3 reads it; before iOS 16 it is MissingValue.
// - passcode: the root domain's `PasswordProtected`, the lock state, not whether a passcode exists
//   (libimobiledevice#1191; MobileGestalt's PasswordConfigured is refused from iOS 17.4, #1542): "true" or left out.
// - osVersion: the root domain's `ProductVersion`.
// - developerImage: whether the developer disk image is mounted (the
//   personalized one from iOS 17), as mobile_image_mounter answers over
//   lockdown (image-mounter.ts, developer-image.ts); read from iOS 17 only.
import type { Dict } from './framing.js';
import { str } from './inventory.js';

export const AMFI_DOMAIN = 'com.apple.security.mac.amfi';

/** A plist boolean as lockdown gives it; a string "true"/"false" is taken too, as some tools print it. */
function bool(v: unknown) {
  if (typeof v === 'boolean') return v;
  if (v === 'true' || v === 'false') return v === 'true';
}

/**
 * The facts of a phone that opened a session: `root` its root domain, `amfi` its amfi domain (undefined when lockdown
 * refused it), `image` its developer disk image (undefined when not read, or the service did not tell).
 */
export function pairedFacts(root: Dict, amfi: Dict | undefined, image?: 'mounted' | 'not-mounted') {
  const facts: Record<string, string> = { paired: 'true' };
  if (image !== undefined) facts.developerImage = String(image === 'mounted');
  const developerMode = bool(amfi?.DeveloperModeStatus);
  if (developerMode !== undefined) facts.developerMode = String(developerMode);
  if (bool(root.PasswordProtected) === true) facts.passcode = 'true';
  const version = str(root.ProductVersion);
  if (version !== undefined) facts.osVersion = version;
  return facts;
}

/** The facts of a phone lockdown will not open a session for: not paired, and its version when it showed it to anyone. */
export function unpairedFacts(publicRoot: Dict | undefined): Record<string, string> {
  const version = str(publicRoot?.ProductVersion);
  return version === undefined ? { paired: 'false' } : { paired: 'false', osVersion: version };
}
