// Reads whether a phone's developer disk image is mounted, over plain USB
// lockdown: StartService `com.apple.mobile.mobile_image_mounter` in the
// inventory's session, one more usbmuxd connection to the port it gives
// (TLS when it says EnableServiceSSL), `LookupImage` of the image type the
// phone's version mounts, and `CopyDevices` after an empty list
// (developer-image.ts says why). No tunnel is needed: the service is
// lockdown's (pymobiledevice3's MobileImageMounterService.SERVICE_NAME; go-ios
// ios/imagemounter). Never mounts, never unmounts.
import { copyDevicesAnswer, imageTypeFor, lookupImageAnswer, type ImageReading } from './developer-image.js';
import type { LockdownClient } from './lockdown.js';

const IMAGE_MOUNTER_SERVICE = 'com.apple.mobile.mobile_image_mounter';

/** `lockdown`: the inventory's connection, inside its session; `open`: a service's own connection. */
export async function readDeveloperImage(
  lockdown: LockdownClient,
  open: (port: number, ssl: boolean) => Promise<LockdownClient>,
  productVersion: string | undefined,
  timeoutMs: number,
): Promise<ImageReading> {
  const type = imageTypeFor(productVersion);
  if (type === undefined) return { state: 'unknown', why: 'its version does not read' };
  let service: LockdownClient | undefined;
  try {
    const { port, ssl } = await lockdown.startService(IMAGE_MOUNTER_SERVICE, timeoutMs);
    service = await open(port, ssl);
    const lookup = lookupImageAnswer(await service.command({ Command: 'LookupImage', ImageType: type }, timeoutMs), productVersion);
    if (lookup.state !== 'ask-copy-devices') return lookup;
    return copyDevicesAnswer(await service.command({ Command: 'CopyDevices' }, timeoutMs), type);
  } catch (err) {
    return { state: 'unknown', why: (err as Error).message };
  } finally {
    service?.close();
  }
}
