// Pair-record certificates made with the openssl CLI (node:crypto cannot
// sign X.509 certificates). A root CA signs a host and a device certificate,
// as in a real pairing; the device keeps its private key, the host keeps the
// root and host keys in the pair record usbmuxd hands out.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemTool } from '../support/system-tool.js';

export interface PairCerts {
  rootCert: string;
  rootKey: string;
  hostCert: string;
  hostKey: string;
  deviceCert: string;
  deviceKey: string;
  /** PEM of the device's RSA public key (lockdown's DevicePublicKey). */
  devicePublicKey: string;
}

let cached: PairCerts | undefined;

/** One set per process: generating RSA keys costs a few hundred ms. */
export function pairCerts(): PairCerts {
  cached ??= generate();
  return cached;
}

function generate(): PairCerts {
  const dir = mkdtempSync(join(tmpdir(), 'sim-ios-certs-'));
  const ssl = (...args: string[]) => execFileSync(systemTool('openssl'), args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'root.key', '-out', 'root.crt', '-subj', '/CN=Sim Root', '-days', '3650', '-sha256');
    for (const name of ['host', 'device']) {
      ssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=Sim ${name}`);
      ssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'root.crt', '-CAkey', 'root.key', '-set_serial', '1', '-days', '3650', '-sha256', '-out', `${name}.crt`);
    }
    ssl('rsa', '-in', 'device.key', '-RSAPublicKey_out', '-out', 'device.pub');
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return {
      rootCert: read('root.crt'),
      rootKey: read('root.key'),
      hostCert: read('host.crt'),
      hostKey: read('host.key'),
      deviceCert: read('device.crt'),
      deviceKey: read('device.key'),
      devicePublicKey: read('device.pub'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
