// Whether a phone has its developer disk image mounted, from what the
// lockdown service `com.apple.mobile.mobile_image_mounter` answers. Pure.
//
// The catalogue (what the service answers, as the tools that read it saw it):
// - `LookupImage` with `ImageType`: `Personalized` from iOS 17 (the
//   personalized DDI; the plain `Developer` image is refused there), else
//   `Developer` (pymobiledevice3, services/mobile_image_mounter.py,
//   `PersonalizedImageMounter` and `DeveloperDiskImageMounter`).
// - Mounted: `ImageSignature`, a list of the mounted images' signatures (data),
//   not empty; `{ImageSignature: [<128 bytes>]}` with no Status at all as a
//   phone answered jkcoxson/idevice#54; a single data value, as
//   pymobiledevice3's `lookup_image` also accepts.
// - Not mounted: an empty `ImageSignature` list with `Status: Complete`; or
//   `ImagePresent: false` (older iOS); or, before iOS 14, no `ImageSignature`
//   at all (go-ios, ios/imagemounter/imagemounter.go `listImages`).
// - Mounted but not listed: on iOS 27.0, `LookupImage` of a mounted
//   Personalized image answered an empty list, while `CopyDevices` listed it
//   with `DiskImageType: Personalized`, `MountPath: /System/Developer`
//   (pymobiledevice3#1815, verified on a phone). So an empty list is asked
//   again through `CopyDevices` (its `EntryList`); a phone that does not know
//   `CopyDevices` (no `EntryList`) predates that and the empty list stands, as
//   pymobiledevice3's `is_image_mounted` decides.
// - An `Error` (a string: `DeviceLocked` as go-ios recorded on iOS 26.5.2 for
//   an unmount, `InternalError`, ...): the image is unknown, never "not
//   mounted".
// Anything else (a reply without any of these keys on iOS 14 or later, keys
// of the wrong type) is unknown too.
import type { Dict } from './framing.js';

type ImageType = 'Personalized' | 'Developer';

/** From which iOS major the personalized image is the one to look up. */
const PERSONALIZED_FROM = 17;

/** The image type a phone of this ProductVersion mounts; undefined when the version does not read. */
export function imageTypeFor(productVersion: string | undefined): ImageType | undefined {
  const major = majorOf(productVersion);
  if (major === undefined) return undefined;
  return major >= PERSONALIZED_FROM ? 'Personalized' : 'Developer';
}

function majorOf(version: string | undefined) {
  const m = /^(\d{1,3})(?:\.\d+)*$/.exec(version?.trim() ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Mounted or not; unknown with why (a refusal, an error answer, a version that does not read). */
export type ImageReading = { state: 'mounted' | 'not-mounted' } | { state: 'unknown'; why: string };

const isData = (v: unknown) => v instanceof Uint8Array;

/** What one reply says, or ask CopyDevices (an empty list); `productVersion`: the phone's, for the replies of before iOS 14 that leave ImageSignature out. */
export function lookupImageAnswer(reply: Dict, productVersion: string | undefined): ImageReading | { state: 'ask-copy-devices' } {
  if (reply.Error !== undefined) return { state: 'unknown', why: `LookupImage answered ${errorText(reply)}` };
  const signature = reply.ImageSignature;
  if (Array.isArray(signature)) {
    if (signature.length === 0) return { state: 'ask-copy-devices' };
    return signature.every(isData) ? { state: 'mounted' } : { state: 'unknown', why: 'LookupImage listed signatures that are not data' };
  }
  if (isData(signature)) return { state: 'mounted' };
  if (signature !== undefined) return { state: 'unknown', why: 'LookupImage answered an ImageSignature that is neither data nor a list' };
  if (reply.ImagePresent === true) return { state: 'mounted' };
  if (reply.ImagePresent === false) return { state: 'not-mounted' };
  const major = majorOf(productVersion);
  if (major !== undefined && major < 14) return { state: 'not-mounted' };
  return { state: 'unknown', why: 'LookupImage answered neither ImageSignature nor ImagePresent' };
}

/** After an empty LookupImage list: whether CopyDevices lists an image of that type. */
export function copyDevicesAnswer(reply: Dict, type: ImageType): ImageReading {
  if (reply.Error !== undefined) {
    // A phone that does not know the command predates the empty-list answer for a mounted image.
    if (reply.Error === 'UnknownCommand') return { state: 'not-mounted' };
    return { state: 'unknown', why: `CopyDevices answered ${errorText(reply)}` };
  }
  const list = reply.EntryList;
  if (list === undefined) return { state: 'not-mounted' };
  if (!Array.isArray(list)) return { state: 'unknown', why: 'CopyDevices answered an EntryList that is not a list' };
  const listed = list.some((e) => e !== null && typeof e === 'object' && (e as Dict).DiskImageType === type);
  return listed ? { state: 'mounted' } : { state: 'not-mounted' };
}

/** The error a reply carries, as data: clipped, one line, never matched as our own words. */
function errorText(reply: Dict) {
  const raw = typeof reply.Error === 'string' ? reply.Error : JSON.stringify(reply.Error);
  return JSON.stringify(raw.replace(/\s+/g, ' ').slice(0, 80));
}
