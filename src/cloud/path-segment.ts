// A device id from a phone goes into a URL path, and URL resolution removes `.` and `..` (and their %2e forms) with the
// segment before: a udid `..` would turn GET /devices/{id}/status into GET /status. No encoding carries them: refused.

/** Thrown for a value that cannot be one segment of a URL path. */
export class PathSegmentError extends Error {}

/** The value as one URL path segment, or PathSegmentError for an empty id or a dot segment. */
export function pathSegment(value: string) {
  if (value === '' || value === '.' || value === '..') {
    throw new PathSegmentError(`the device id ${JSON.stringify(value)} cannot be a segment of a URL path (a phone gave it); the cloud is not asked about it`);
  }
  return encodeURIComponent(value);
}
