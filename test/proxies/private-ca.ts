// Certificates of private CAs made with the openssl CLI for the tests, as
// test/sim-ios/certs.ts makes the pairing ones (node:crypto cannot sign
// X.509): a CA named as a company root, and a server certificate it signs for
// the names the cloud double answers as. EC P-256 keys: generated in
// milliseconds where RSA takes hundreds.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemTool } from '../support/system-tool.js';

export interface PrivateCa {
  /** PEM of the CA certificate: what caFile names. */
  caCert: string;
  /** The CA's subject, as node:crypto prints it. */
  caSubject: string;
  /** A server certificate and key the CA signed for `names`. */
  serverCert: string;
  serverKey: string;
}

const cache = new Map<string, PrivateCa>();

/** One CA per name and set of server names, per process. */
export function privateCa(caName: string, names: readonly string[] = ['cloud.lab.test', 'localhost', '127.0.0.1']): PrivateCa {
  const key = `${caName}|${names.join(',')}`;
  let ca = cache.get(key);
  if (!ca) {
    ca = generate(caName, names);
    cache.set(key, ca);
  }
  return ca;
}

function generate(caName: string, names: readonly string[]): PrivateCa {
  const dir = mkdtempSync(join(tmpdir(), 'da-private-ca-'));
  const ssl = (...args: string[]) => execFileSync(systemTool('openssl'), args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    ssl(
      'req',
      '-x509',
      ...ec,
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-subj',
      `/O=Device Agent Tests/CN=${caName}`,
      '-days',
      '30',
      '-sha256',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    );
    ssl('req', '-new', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', `/CN=${names[0]}`);
    const san = names.map((n) => (/^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(',');
    writeFileSync(join(dir, 'server.ext'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    ssl(
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '30',
      '-sha256',
      '-extfile',
      'server.ext',
      '-out',
      'server.crt',
    );
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    return { caCert: read('ca.crt'), caSubject: `O=Device Agent Tests, CN=${caName}`, serverCert: read('server.crt'), serverKey: read('server.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
