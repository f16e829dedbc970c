// One inventory of one iPhone: at most one lockdown connection and one session, every step under the deadline, the
// whole under a budget. Never pairs nor unpairs: a phone without a pair record is reported as such.
import type { UsbmuxdAddress } from '../../config/usbmuxd-address.js';
import { LockdownError } from './errors.js';
import { dictOf, type Dict } from './framing.js';
import type { LockdownValues } from './inventory.js';
import { LOCKDOWN_PORT, LockdownClient } from './lockdown.js';
import { readDeveloperImage } from './image-mounter.js';
import { imageTypeFor } from './developer-image.js';
import { AMFI_DOMAIN } from './readiness.js';
import { readRelayWear } from './diagnostics.js';
import { connectDevice, readPairRecord, type MuxDevice } from './usbmuxd-client.js';

export type ProbeResult =
  | { kind: 'ok'; values: LockdownValues }
  /** No pair record on this host, or the phone refused it; `public` holds what lockdown shows anyone. */
  | { kind: 'not-paired'; detail: string; public?: Dict }
  /** usbmuxd or lockdown did not answer in time, or the connection broke. */
  | { kind: 'silent'; detail: string };

/** Errors lockdown gives a host it does not trust (yet). */
const NOT_PAIRED_ERRORS = new Set(['InvalidHostID', 'PasswordProtected', 'PairingDialogResponsePending', 'UserDeniedPairing', 'InvalidPairRecord']);

/**
 * `known`: the root domain read earlier on this connection; given, only the volatile domains are read. Without it the
 * session also reads Developer Mode for readiness, so that costs the periodic cycle nothing.
 * `readImage`: read whether the developer disk image is mounted (iOS 17 and later: image-mounter.ts): with the root
 * domain, and on every inventory while the last reading said it was not, so that a phone someone mounts one on is seen
 * at the next report. One more connection to the phone when asked.
 */
export async function probeIphone(
  address: UsbmuxdAddress,
  device: MuxDevice,
  stepTimeoutMs: number,
  known?: Dict,
  { readImage = false } = {},
): Promise<ProbeResult> {
  let client: LockdownClient | undefined;
  try {
    const record = await readPairRecord(address, device.udid, stepTimeoutMs);
    client = new LockdownClient(await connectDevice(address, device.deviceId, LOCKDOWN_PORT, stepTimeoutMs));
    const type = await client.queryType(stepTimeoutMs);
    if (type !== 'com.apple.mobile.lockdown') return { kind: 'silent', detail: `port ${LOCKDOWN_PORT} answered as ${JSON.stringify(type)}, not lockdown` };
    if (!record) {
      const pub = (await client.getValue(undefined, undefined, stepTimeoutMs)) as Dict | undefined;
      return { kind: 'not-paired', detail: 'no pair record for it on this host', public: pub };
    }
    const asked = known ? known.ProductVersion : await client.getValue(undefined, 'ProductVersion', stepTimeoutMs);
    const version = typeof asked === 'string' ? asked : undefined;
    await client.startSession(record, version, stepTimeoutMs);
    const root = known ?? ((await client.getValue(undefined, undefined, stepTimeoutMs)) as Dict);
    const battery = await optionalDomain(client, 'com.apple.mobile.battery', stepTimeoutMs);
    const diskUsage = await optionalDomain(client, 'com.apple.disk_usage', stepTimeoutMs);
    // Last, so that lockdown refusing it (MissingValue before iOS 16, another error, a close) costs this check alone.
    const amfi = known ? { value: undefined, connected: true } : await developerModeStatus(client, stepTimeoutMs);
    const productVersion = typeof root?.ProductVersion === 'string' ? root.ProductVersion : undefined;
    // A service the session started, on its own connection through usbmuxd (TLS from its first byte when it says so).
    const open = async (port: number, ssl: boolean) => {
      const service = new LockdownClient(await connectDevice(address, device.deviceId, port, stepTimeoutMs));
      if (ssl)
        await service.secure(record, version, stepTimeoutMs).catch((err: unknown) => {
          service.close();
          throw err;
        });
      return service;
    };
    // Only from iOS 17, whose developer services need the personalized image: an older phone costs nothing more.
    const image =
      readImage && amfi.connected && imageTypeFor(productVersion) === 'Personalized'
        ? await readDeveloperImage(client, open, productVersion, stepTimeoutMs)
        : undefined;
    // The battery's wear, with the root domain (the slow tier), last: a relay that refuses or hangs costs its reading alone.
    const relay = !known && amfi.connected ? await readRelayWear(client, open, stepTimeoutMs) : undefined;
    if (amfi.connected && (relay?.lockdownAlive ?? true)) await client.stopSession(stepTimeoutMs).catch(() => {});
    return {
      kind: 'ok',
      values: {
        root: root ?? {},
        battery,
        diskUsage,
        ...(amfi.value !== undefined && { amfi: { DeveloperModeStatus: amfi.value } }),
        ...(image && image.state !== 'unknown' && { developerImage: image.state }),
        ...(relay && { wear: { ...(relay.battery && { battery: relay.battery }), unread: relay.unread } }),
      },
    };
  } catch (err) {
    if (err instanceof LockdownError && NOT_PAIRED_ERRORS.has(err.code)) return { kind: 'not-paired', detail: `lockdown answered ${err.code}` };
    return { kind: 'silent', detail: (err as Error).message };
  } finally {
    client?.close();
  }
}

/**
 * amfi's DeveloperModeStatus, read for readiness: undefined when lockdown refuses it, or when the connection closes or
 * stalls on it (then `connected` is false). Either way its check is unknown, and what was read before stands.
 */
async function developerModeStatus(client: LockdownClient, timeoutMs: number) {
  try {
    return { value: await client.getValue(AMFI_DOMAIN, 'DeveloperModeStatus', timeoutMs), connected: true };
  } catch (err) {
    return { value: undefined, connected: err instanceof LockdownError };
  }
}

async function optionalDomain(client: LockdownClient, domain: string, timeoutMs: number) {
  try {
    return dictOf(await client.getValue(domain, undefined, timeoutMs));
  } catch (err) {
    // A domain the phone does not have is not a failure of the phone.
    if (err instanceof LockdownError) return undefined;
    throw err;
  }
}
