// Scrapers' certificates for a status endpoint whose web config names a
// client_ca_file: a CA of their own and one client certificate it signed,
// made with the openssl CLI as test/proxies/private-ca.ts makes the server's.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemTool } from './system-tool.js';

/**
 * Writes into `dir`: clients.crt and clients.key (the CA, what client_ca_file
 * names), prom.crt and prom.key (a client certificate for CN=prometheus).
 */
export function writeClientCa(dir: string): void {
  const ssl = (...args: string[]) => execFileSync(systemTool('openssl'), args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    'clients.key',
    '-out',
    'clients.crt',
    '-subj',
    '/CN=Scrapers CA',
    '-days',
    '2',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
  );
  ssl('req', '-new', ...ec, '-keyout', 'prom.key', '-out', 'prom.csr', '-subj', '/CN=prometheus');
  writeFileSync(join(dir, 'prom.ext'), 'extendedKeyUsage=clientAuth\n');
  ssl(
    'x509',
    '-req',
    '-in',
    'prom.csr',
    '-CA',
    'clients.crt',
    '-CAkey',
    'clients.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'prom.ext',
    '-out',
    'prom.crt',
  );
}
