import { describe, expect, it } from 'vitest';
import { newestOfLine, releaseLine } from '../../packaging/node-release.js';

// `npm run package` says in one line whether a newer Node.js of the bundled
// line is on the registry (docs/install/package.md, Node.js security releases).

describe('the bundled Node.js against the registry', () => {
  it('finds the newest release of the same major line, ignoring pre-releases and other lines', () => {
    expect(newestOfLine('24.21.0', ['24.9.0', '24.21.0', '24.21.1', '25.0.0', '24.22.0-rc.1', '24.10.3'])).toBe('24.21.1');
    expect(newestOfLine('24.21.0', ['23.1.0'])).toBeUndefined();
  });

  it('one line: newer, up to date, or the registry not reached', () => {
    expect(releaseLine('24.21.0', ['24.21.0', '24.22.1'])).toMatch(/^package: NEWER NODE\.JS: 24\.22\.1 is on the registry, this package bundles 24\.21\.0/);
    expect(releaseLine('24.21.0', ['24.20.0', '24.21.0'])).toBe('package: Node.js 24.21.0 bundled, the newest 24.x on the registry');
    expect(releaseLine('24.21.0', { error: 'no answer within 20 s' })).toMatch(/could not be asked for the newest 24\.x \(no answer within 20 s\)/);
  });
});
