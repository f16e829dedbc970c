// The status endpoint's certificate and key, picked up again when rotated without a restart: a new connection looks at
// the files' identity at most once per interval, and a change is read and set with setSecureContext before its
// handshake. A pair that makes no TLS context leaves the one in use, with one warning per such pair.

import { statSync } from 'node:fs';
import type { Server } from 'node:net';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from '../log/logger.js';
import { readTlsPair, type WebTls } from './web-config.js';

/** At most one look at the files in this long: a scrape storm costs two stat calls a second. */
const CHECK_MS = 1_000;

/** What tells a file's content changed without reading it. */
function identity(path: string) {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (error) {
    return `missing:${(error as NodeJS.ErrnoException).code ?? ''}`;
  }
}

/**
 * Puts a changed certificate and key in place on `server`, looking before each connection's handshake (the listener
 * runs before the TLS server's own) at most once per `checkMs`.
 */
export function reloadTls(
  server: Server & { setSecureContext(options: SecureContextOptions): void },
  { certFile, keyFile }: Pick<WebTls, 'certFile' | 'keyFile'>,
  /** The options of the context in use, but for cert and key. */
  base: Omit<SecureContextOptions, 'cert' | 'key'>,
  logger: Logger,
  checkMs = CHECK_MS,
) {
  const identities = () => `${identity(certFile)}|${identity(keyFile)}`;
  let lastCheck = -Infinity;
  let seen = identities();
  let warned: string | undefined;
  server.prependListener('connection', () => {
    const now = Date.now();
    if (now - lastCheck < checkMs && now >= lastCheck) return;
    lastCheck = now;
    const current = identities();
    if (current === seen) return;
    let options: SecureContextOptions;
    try {
      const { cert, key } = readTlsPair(certFile, keyFile);
      options = { ...base, cert, key };
      // Throws on a key that is not the certificate's, or a file that is not PEM.
      createSecureContext(options);
    } catch (error) {
      if (warned !== current) {
        warned = current;
        logger.warn(
          { certFile, keyFile, err: (error as Error).message },
          `the status endpoint's new certificate or key cannot be used (${(error as Error).message}); it keeps serving the previous one. Check that ${certFile} and ${keyFile} are a matching PEM pair`,
        );
      }
      return;
    }
    server.setSecureContext(options);
    seen = current;
    warned = undefined;
    logger.info({ certFile }, 'the status endpoint serves its new certificate');
  });
}
