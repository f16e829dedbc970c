import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// node-forge loads on demand (src/platforms/android/adb/forge-on-demand.ts):
// what adbkit does with it must still work, in a fresh process (dist/), where
// nothing has loaded forge before the client.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const client = pathToFileURL(resolve(root, 'dist/src/platforms/android/adb/client.js')).href;

/** An adb public key (~/.android/adbkey.pub): base64 of len, n0inv, n and rr little-endian, e; then a comment. */
function adbPublicKey(): { text: string; modulusHex: string; fingerprint: string } {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const n = Buffer.from(publicKey.export({ format: 'jwk' }).n!, 'base64url');
  const struct = Buffer.alloc(4 + 4 + 256 + 256 + 4);
  struct.writeUInt32LE(64, 0);
  Buffer.from(n).reverse().copy(struct, 8);
  struct.writeUInt32LE(65537, 8 + 256 + 256);
  const fingerprint = createHash('md5').update(struct).digest('hex').match(/../g)!.join(':');
  return { text: `${struct.toString('base64')} lab@host`, modulusHex: n.toString('hex').replace(/^0+/, ''), fingerprint };
}

describe('node-forge on demand', () => {
  it("loads forge's core alone with the client, and the whole of it when adbkit reads a key, which then reads right", () => {
    const key = adbPublicKey();
    const script = `
      const { createRequire } = await import('node:module');
      await import(${JSON.stringify(client)});
      const require = createRequire(${JSON.stringify(resolve(root, 'node_modules/@devicefarmer/adbkit/package.json'))});
      const forgeParts = () => Object.keys(require.cache).filter((p) => p.includes('/node-forge/lib/')).map((p) => p.slice(p.lastIndexOf('/') + 1)).sort();
      const before = forgeParts();
      const adbkit = require('@devicefarmer/adbkit');
      const parsed = await adbkit.Adb.util.parsePublicKey(${JSON.stringify(key.text)});
      console.log(JSON.stringify({ before, after: forgeParts(), n: parsed.n.toString(16), fingerprint: parsed.fingerprint, comment: parsed.comment }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as { before: string[]; after: string[]; n: string; fingerprint: string; comment: string };
    // index.js: the seeded entry, standing in for the package.
    expect(out.before).toEqual(['forge.js', 'index.js', 'jsbn.js']);
    expect(out.after).toEqual(expect.arrayContaining(['md5.js', 'pki.js', 'rsa.js', 'tls.js', 'x509.js']));
    expect(out).toMatchObject({ n: key.modulusHex, fingerprint: key.fingerprint, comment: 'lab@host' });
  });
});
