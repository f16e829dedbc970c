import { describe, expect, it } from 'vitest';
import { DEFAULT_PROXY_PORT, isProblem, parseProxyUrl, type ProxyEndpoint } from '../../src/config/proxy-url.js';

function endpoint(value: string): ProxyEndpoint {
  const parsed = parseProxyUrl(value);
  if (parsed === undefined || isProblem(parsed)) throw new Error(`not an endpoint: ${JSON.stringify(parsed)}`);
  return parsed;
}

describe('parseProxyUrl', () => {
  it('reads http://host:port, and an empty setting as no proxy', () => {
    expect(endpoint('http://proxy.corp.example:3128')).toEqual({
      host: 'proxy.corp.example',
      port: 3128,
      label: 'http://proxy.corp.example:3128',
      secrets: [],
    });
    expect(parseProxyUrl('')).toBeUndefined();
    expect(parseProxyUrl('  ')).toBeUndefined();
    expect(parseProxyUrl(undefined)).toBeUndefined();
  });

  it('reads a value without scheme as http://, and without port as 1080, as curl does', () => {
    expect(endpoint('proxy.corp.example:8080')).toMatchObject({ host: 'proxy.corp.example', port: 8080, label: 'http://proxy.corp.example:8080' });
    expect(endpoint('proxy.corp.example')).toMatchObject({ port: DEFAULT_PROXY_PORT, label: 'http://proxy.corp.example:1080' });
    expect(endpoint('HTTP://Proxy.Corp.Example:80/')).toMatchObject({ host: 'proxy.corp.example', port: 80 });
    expect(endpoint('http://[::1]:3128')).toMatchObject({ host: '::1', port: 3128, label: 'http://[::1]:3128' });
  });

  it('turns credentials into a Basic Proxy-Authorization, decoding percent-encoding, and keeps them out of the label', () => {
    const p = endpoint('http://lab%40corp:p%40ss%3Aw%2Frd@proxy:3128');
    expect(p.username).toBe('lab@corp');
    expect(p.authorization).toBe(`Basic ${Buffer.from('lab@corp:p@ss:w/rd').toString('base64')}`);
    expect(p.label).toBe('http://proxy:3128');
    expect(p.secrets).toEqual(['p@ss:w/rd', 'p%40ss%3Aw%2Frd', 'lab@corp:p@ss:w/rd']);
    expect(endpoint('http://user@proxy:3128')).toMatchObject({ username: 'user', authorization: `Basic ${Buffer.from('user:').toString('base64')}` });
  });

  it('refuses what it cannot speak, without repeating the value (it may hold a password)', () => {
    const problems = [
      'https://u:secret-pw@proxy:3128',
      'socks5h://u:secret-pw@proxy:1080',
      'http://u:secret-pw@proxy:3128/path',
      'http://u:secret-pw@:3128',
      'http://u:%E0%A4%A@proxy:1',
    ].map((v) => parseProxyUrl(v));
    for (const p of problems) {
      expect(isProblem(p)).toBe(true);
      expect(JSON.stringify(p)).not.toContain('secret-pw');
    }
    expect((problems[0] as { problem: string }).problem).toMatch(/TLS connection to the proxy \(https:\/\/\) is not supported/);
    expect((problems[1] as { problem: string }).problem).toMatch(/socks5h:\/\/ proxies is not supported/);
  });
});
