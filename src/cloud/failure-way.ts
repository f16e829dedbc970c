// The way a report failed, in a few words that stay the same while it fails
// alike and differ when it fails otherwise: the report loop logs one line
// when it changes (a gateway's 502 while the cloud is down, then its 504 when
// the cloud is up but slow), the repeats at debug. Fine enough to tell the
// status code, the network error code, TLS and a timeout apart.

import { CloudAuthError, CloudError, CloudProtocolError, CloudRejectedError, CloudUnavailableError } from './errors.js';

export function failureWay(error: Error): string {
  if (error instanceof CloudUnavailableError) return error.way;
  if (error instanceof CloudAuthError || error instanceof CloudRejectedError) return `HTTP ${error.status}`;
  if (error instanceof CloudProtocolError)
    return `unexpected answer: HTTP ${error.status} ${error.contentType.split(';')[0]!.trim() || 'without a content type'}`;
  if (error instanceof CloudError) return error.name;
  return `inventory failed: ${error.name}`;
}
