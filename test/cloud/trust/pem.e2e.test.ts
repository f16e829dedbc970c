import { describe, expect, it } from 'vitest';
import { certificateBlocks } from '../../../src/cloud/trust/pem.js';
import { privateCa } from '../../proxies/private-ca.js';

describe('certificateBlocks', () => {
  it('takes the certificates of a bundle, leaving out comments and keys', () => {
    const a = privateCa('PEM Test A');
    const b = privateCa('PEM Test B');
    const bundle = `# Company root\n${a.caCert}\n${a.serverKey}\nsubject=/CN=B\r\n${b.caCert.replace(/\n/g, '\r\n')}`;
    const blocks = certificateBlocks(bundle);
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toBe(a.caCert);
    expect(blocks[1]!.startsWith('-----BEGIN CERTIFICATE-----')).toBe(true);
    expect(certificateBlocks('no certificate here')).toEqual([]);
  });
});
