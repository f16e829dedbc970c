// Reads whether a phone's developer disk image is mounted, over plain USB
// lockdown: StartService `com.apple.mobile.mobile_image_mounter` in the
// inventory's session, one more usbmuxd connection to the port it gives
// (TLS when it says EnableServiceSSL), `LookupImage` of the image type the
// phone's version mounts, and `CopyDevices` after an empty list
// (developer-image.ts says why). No tunnel is needed: the service is
// lockdown's (pymobiledevice3's MobileImageMounterService.SERVICE_NAME; go-ios
// ios/imagemounter). Never mounts, never unmounts.
import type { UsbmuxdAddress } from '../../config/usbmuxd-address.js';
import { copyDevicesAnswer, imageTypeFor, lookupImageAnswer } from './developer-image.js';
import type { Dict } from './framing.js';
import { LockdownClient } from './lockdown.js';
import { connectDevice, type MuxDevice } from './usbmuxd-client.js';

const IMAGE_MOUNTER_SERVICE = 'com.apple.mobile.mobile_image_mounter';

/** Mounted or not; unknown with why (a refusal, an error answer, a version that does not read). */
type ImageReading = { state: 'mounted' | 'not-mounted' } | { state: 'unknown'; why: string };

/** `lockdown`: the inventory's connection, inside its session. */
export async function readDeveloperImage(
  address: UsbmuxdAddress,
  device: MuxDevice,
  lockdown: LockdownClient,
  record: Dict,
  productVersion: string | undefined,
  timeoutMs: number,
): Promise<ImageReading> {
  const type = imageTypeFor(productVersion);
  if (type === undefined) return { state: 'unknown', why: 'its version does not read' };
  let service: LockdownClient | undefined;
  try {
    const { port, ssl } = await lockdown.startService(IMAGE_MOUNTER_SERVICE, timeoutMs);
    service = new LockdownClient(await connectDevice(address, device.deviceId, port, timeoutMs));
    if (ssl) await service.secure(record, productVersion, timeoutMs);
    const lookup = lookupImageAnswer(await service.command({ Command: 'LookupImage', ImageType: type }, timeoutMs), productVersion);
    if (lookup.kind !== 'ask-copy-devices') return lookup.kind === 'unknown' ? { state: 'unknown', why: lookup.why } : { state: lookup.kind };
    const listed = copyDevicesAnswer(await service.command({ Command: 'CopyDevices' }, timeoutMs), type);
    return listed.kind === 'unknown' ? { state: 'unknown', why: listed.why } : { state: listed.kind };
  } catch (err) {
    return { state: 'unknown', why: (err as Error).message };
  } finally {
    service?.close();
  }
}
