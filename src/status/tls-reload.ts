// The status endpoint's certificate and key, picked up again when rotated without a restart: a new connection looks at
// the files' identity at most once per interval, and a change is read and set with setSecureContext before its
// handshake. A pair that makes no TLS context leaves the one in use, with one warning per such pair.

import { statSync } from 'node:fs';
import type { Server } from 'node:net';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import type { Logger } from '../log/logger.js';
import { readTlsPair } from './web-config.js';

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

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export class TlsReloader {
  private lastCheck = -Infinity;
  private seen: string;
  private warned: string | undefined;

  constructor(
    private readonly files: TlsFiles,
    /** The options of the context in use, but for cert and key. */
    private readonly base: Omit<SecureContextOptions, 'cert' | 'key'>,
    private readonly logger: Logger,
    private readonly checkMs = CHECK_MS,
  ) {
    this.seen = this.identities();
  }

  /** Looks before each connection's handshake (the listener runs before the TLS server's own). */
  attach(server: Server & { setSecureContext(options: SecureContextOptions): void }) {
    server.prependListener('connection', () => this.check(server));
  }

  /** Puts a changed pair in place; returns true when it did. */
  check(server: { setSecureContext(options: SecureContextOptions): void }) {
    const now = Date.now();
    if (now - this.lastCheck < this.checkMs && now >= this.lastCheck) return false;
    this.lastCheck = now;
    const current = this.identities();
    if (current === this.seen) return false;
    let options: SecureContextOptions;
    try {
      const { cert, key } = readTlsPair(this.files.certFile, this.files.keyFile);
      options = { ...this.base, cert, key };
      // Throws on a key that is not the certificate's, or a file that is not PEM.
      createSecureContext(options);
    } catch (error) {
      if (this.warned !== current) {
        this.warned = current;
        this.logger.warn(
          { certFile: this.files.certFile, keyFile: this.files.keyFile, err: (error as Error).message },
          `the status endpoint's new certificate or key cannot be used (${(error as Error).message}); it keeps serving the previous one. Check that ${this.files.certFile} and ${this.files.keyFile} are a matching PEM pair`,
        );
      }
      return false;
    }
    server.setSecureContext(options);
    this.seen = current;
    this.warned = undefined;
    this.logger.info({ certFile: this.files.certFile }, 'the status endpoint serves its new certificate');
    return true;
  }

  private identities() {
    return `${identity(this.files.certFile)}|${identity(this.files.keyFile)}`;
  }
}
