import { describe, expect, it } from 'vitest';
import { maskString } from '../../src/log/redact.js';

describe('maskString: URLs with credentials', () => {
  it('masks the password of any URL, keeping scheme, user and host', () => {
    expect(maskString('HTTPS_PROXY=http://lab:s3cr%40t@proxy.corp:3128 failed')).toBe('HTTPS_PROXY=http://lab:***@proxy.corp:3128 failed');
    expect(maskString('{"url":"http://u:p@10.0.0.1:8080/"}')).toBe('{"url":"http://u:***@10.0.0.1:8080/"}');
    expect(maskString('socks5h://:only-pw@proxy:1080')).toBe('socks5h://:***@proxy:1080');
  });

  it('leaves URLs without a password, and the placeholder of advice, as they are', () => {
    expect(maskString('http://proxy.corp:3128 and http://user@proxy:3128')).toBe('http://proxy.corp:3128 and http://user@proxy:3128');
    expect(maskString('write it as http://USER:PASSWORD@HOST:PORT')).toBe('write it as http://USER:PASSWORD@HOST:PORT');
  });
});
