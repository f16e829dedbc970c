// Whom the agent trusts for https to the cloud, built once per process: Node's roots (with NODE_EXTRA_CA_CERTS), the
// system store when systemCa is on, and the CAs of caFile. The system store is read from the distribution's bundle
// file, as Go does, not with --use-system-ca, which on Debian 12 costs 9 MB of RSS and 300-600 ms at start against 1 MB
// and 30-100 ms (docs/install/proxy.md).

import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, getCACertificates } from 'node:tls';
import { ConfigError } from '../../config/errors.js';
import { certificateBlocks } from './pem.js';

interface TrustSettings {
  caFile?: string;
  systemCa: boolean;
}

export type TrustSource =
  | { kind: 'default'; count: number }
  | { kind: 'system'; path: string; count: number }
  | { kind: 'system-missing'; tried: string[] }
  | { kind: 'file'; path: string; subjects: string[] };

/** Debian and Ubuntu, Fedora and RHEL, openSUSE, Alpine: where update-ca-certificates and its kin write the bundle. */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/ca-bundle.pem', '/etc/ssl/cert.pem'];

const CA_FILE_SETTING = 'caFile (DEVICE_AGENT_CA_FILE)';

/** Reads the files the settings name; a caFile that cannot be used is a ConfigError naming it. */
export function loadTrust(settings: TrustSettings, env: NodeJS.ProcessEnv = process.env, bundles: readonly string[] = SYSTEM_BUNDLES) {
  const defaults = getCACertificates('default');
  const sources: TrustSource[] = [{ kind: 'default', count: defaults.length }];
  const extra: string[] = [];
  if (settings.systemCa) {
    // SSL_CERT_FILE points OpenSSL's tools elsewhere; the agent follows it.
    const tried = env.SSL_CERT_FILE ? [env.SSL_CERT_FILE, ...bundles] : [...bundles];
    const found = firstReadable(tried);
    if (found) {
      const blocks = certificateBlocks(found.text);
      extra.push(...blocks);
      sources.push({ kind: 'system', path: found.path, count: blocks.length });
    } else {
      sources.push({ kind: 'system-missing', tried });
    }
  }
  if (settings.caFile) {
    const { blocks, subjects } = readCaFile(settings.caFile);
    extra.push(...blocks);
    sources.push({ kind: 'file', path: settings.caFile, subjects });
  }
  // No secureContext: Node's default roots, as without any setting.
  if (extra.length === 0) return { secureContext: undefined, sources };
  return { secureContext: createSecureContext({ ca: [...defaults, ...extra] }), sources };
}

/** The file's certificates, each checked as it is read, with their subjects. */
function readCaFile(path: string) {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(CA_FILE_SETTING, `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const blocks = certificateBlocks(text);
  if (blocks.length === 0)
    throw new ConfigError(CA_FILE_SETTING, `${path} holds no PEM certificate (-----BEGIN CERTIFICATE----- ... -----END CERTIFICATE-----)`);
  const subjects = blocks.map((block, i) => {
    try {
      return new X509Certificate(block).subject.replace(/\n/g, ', ');
    } catch {
      throw new ConfigError(CA_FILE_SETTING, `certificate ${i + 1} of ${path} is not a valid X.509 certificate`);
    }
  });
  return { blocks, subjects };
}

function firstReadable(paths: readonly string[]) {
  for (const path of paths) {
    try {
      return { path, text: readFileSync(path, 'utf8') };
    } catch {
      // Not this distribution's place: try the next.
    }
  }
}
