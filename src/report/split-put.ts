// A report the cloud answers 413 to is not sent whole again (it would get the same answer every time): the devices are
// split in halves and each PUT on its own, down to single devices; a device too large alone goes with its identity and
// a message saying why. The part size that went through is kept for the next reports. Safe because PUT /devices stores
// the devices it is given: a device is gone only when sent UNPLUGGED, never by being left out of a part.
import { CloudRejectedError } from '../cloud/errors.js';
import type { DeviceInfo, FailedDevice, ReportAnswer, ReportBody } from '../cloud/types.js';
import { limited } from '../log/limited.js';
import type { Logger } from '../log/logger.js';
import { composeMessage } from '../cloud/device-message.js';
import type { PutOptions } from '../cloud/client.js';

/** Where reports go: the cloud client, or a double. */
export interface ReportSink {
  putDevices(body: ReportBody, options?: PutOptions): Promise<ReportAnswer>;
  /** The host the reports go to, for lines that name it. */
  readonly host?: string;
}

/** The message of a device sent with its identity only. */
export const TOO_LARGE_MESSAGE = 'its inventory alone was larger than the cloud accepts (HTTP 413): only its identity is reported';

/** The part size that went through after a 413, used at once by the next reports; the whole is tried again after REMEMBER_MS. */
export interface PartSize {
  devices?: number;
  /** Monotonic ms until which it holds. */
  until?: number;
}

export const REMEMBER_MS = 60 * 60_000;

export async function putSplitting(sink: ReportSink, body: ReportBody, opts: PutOptions, logger: Logger, remembered?: { size: PartSize; now: number }) {
  const failed: FailedDevice[] = [];
  const trimmed: string[] = [];
  let parts = 0;
  let refused = 0;
  let largest = 0;
  const put = async (devices: DeviceInfo[]) => {
    try {
      parts++;
      // The cloud's list has any length: spread into push() 200,000 arguments would overflow the stack.
      for (const f of (await sink.putDevices({ ...body, devices }, opts)).failedDevices) failed.push(f);
      largest = Math.max(largest, devices.length);
    } catch (err) {
      if (!(err instanceof CloudRejectedError && err.status === 413) || devices.length === 0) throw err;
      refused++;
      if (devices.length === 1) {
        const only = identityOnly(devices[0]!);
        // Even the identity too large: nothing smaller can be sent.
        if (only === devices[0]) throw err;
        trimmed.push(only.udid);
        await put([only]);
        return;
      }
      const half = Math.ceil(devices.length / 2);
      await put(devices.slice(0, half));
      await put(devices.slice(half));
    }
  };
  const size = remembered?.size;
  const now = remembered?.now ?? 0;
  const chunk = Math.max(1, size?.devices !== undefined && size.until !== undefined && now < size.until ? size.devices : body.devices.length);
  for (let i = 0; i < body.devices.length || i === 0; i += chunk) await put(body.devices.slice(i, i + chunk));
  if (size) {
    if (refused > 0) Object.assign(size, { devices: Math.max(1, largest), until: now + REMEMBER_MS });
    else if (chunk >= body.devices.length) Object.assign(size, { devices: undefined, until: undefined });
  }
  if (refused > 0) {
    limited(logger).warn(
      'report-split',
      { devices: body.devices.length, parts, trimmed },
      `the cloud refused the report as too large (HTTP 413); it went out in ${parts} parts` +
        (trimmed.length ? `, and ${trimmed.join(', ')} with ${trimmed.length === 1 ? 'its identity' : 'their identities'} only (too large alone)` : '') +
        '. A proxy or the cloud limits the body size (nginx: client_max_body_size)',
    );
  }
  return { answer: { failedDevices: failed }, parts, trimmed };
}

/** The fields the contract needs to name a device and its state, and why the rest is missing. */
function identityOnly(d: DeviceInfo) {
  if (d.message === TOO_LARGE_MESSAGE) return d;
  return {
    udid: d.udid,
    serialNumber: d.serialNumber,
    state: d.state,
    status: d.status,
    platformName: d.platformName,
    isAndroid: d.isAndroid,
    isIos: d.isIos,
    ...composeMessage([TOO_LARGE_MESSAGE]),
  };
}
