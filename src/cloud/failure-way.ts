// The way a report failed, in words that stay the same while it fails alike (the status code, network error, TLS, a
// timeout): the report loop logs a line when it changes, the repeats at debug.

import { CloudAuthError, CloudError, CloudProtocolError, CloudRejectedError, CloudUnavailableError } from './errors.js';

export function failureWay(error: Error) {
  if (error instanceof CloudUnavailableError) return error.way;
  if (error instanceof CloudAuthError || error instanceof CloudRejectedError) return `HTTP ${error.status}`;
  if (error instanceof CloudProtocolError)
    return `unexpected answer: HTTP ${error.status} ${error.contentType.split(';')[0]!.trim() || 'without a content type'}`;
  if (error instanceof CloudError) return error.name;
  return `inventory failed: ${error.name}`;
}
