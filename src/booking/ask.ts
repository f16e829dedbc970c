import type { BookingAnswer, BookingStatusSource } from '../cloud/booking-status.js';
import { errorText } from '../util/error-text.js';

/** The cloud's word on a device for the booking gate: its answer, or why none; a failure or no cloud is unknown, never "not booked". */
export function askBooking(booking: BookingStatusSource | undefined, deviceId: string): Promise<BookingAnswer> {
  if (!booking) return Promise.resolve({ unknown: 'the agent has no cloud to ask' });
  return booking.ask(deviceId).catch((err: unknown) => ({ unknown: errorText(err) }));
}
