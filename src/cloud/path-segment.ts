// A device id from a phone goes into a URL path. encodeURIComponent leaves
// `.` and `..` as they are, and URL resolution (WHATWG, so Node's fetch and
// URL) removes them together with the segment before: a udid of `..` would
// turn GET /devices/{id}/status into GET /status. Their percent-encoded forms
// (%2e) are dot segments to the URL parser too, so no encoding can carry
// them: such an id is refused.

/** Thrown for a value that cannot be one segment of a URL path. */
export class PathSegmentError extends Error {}

/** The value as one URL path segment, or PathSegmentError for an empty id or a dot segment. */
export function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..') {
    throw new PathSegmentError(`the device id ${JSON.stringify(value)} cannot be a segment of a URL path (a phone gave it); the cloud is not asked about it`);
  }
  return encodeURIComponent(value);
}
