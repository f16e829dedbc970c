// The cloud's word on whether a device is booked: GET /devices/{deviceId}/status through the one cloud client, under a
// deadline of its own. Anything but a clear boolean isBooked is unknown, never "not booked": the device is left alone.

import type { CloudClient } from './client.js';
import { errorText } from '../util/error-text.js';

/** The cloud's word on one device: booked or not, or why it could not say. */
export type BookingAnswer = { booked: boolean } | { unknown: string };

/** Asks the cloud whether a device is booked. */
export interface BookingStatusSource {
  ask(deviceId: string): Promise<BookingAnswer>;
}

export class BookingStatusClient implements BookingStatusSource {
  constructor(
    private readonly cloud: Pick<CloudClient, 'getDeviceStatus'>,
    /** The whole question, retries included, ends by this. */
    private readonly timeoutMs: number,
  ) {}

  async ask(deviceId: string) {
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const status = await this.cloud.getDeviceStatus(deviceId, { signal, deadline: Date.now() + this.timeoutMs });
      if (status === undefined) return { unknown: 'the cloud does not know the device' };
      const booked = (status as { isBooked?: unknown }).isBooked;
      if (typeof booked !== 'boolean') return { unknown: 'the cloud answered without a boolean isBooked' };
      return { booked };
    } catch (error) {
      if (signal.aborted) return { unknown: `no answer within ${this.timeoutMs / 1000} s` };
      // The cloud client's errors carry masked texts only; keep a log line's worth.
      const text = errorText(error);
      return { unknown: text.split('\n')[0]!.slice(0, 200) };
    }
  }
}
