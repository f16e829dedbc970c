import { describe, expect, it } from 'vitest';
import { versionText } from '../../src/cli/version.js';

// What `device-agent --version` says (issue 70): the package's docs promise it names the Node.js it runs on.

const node = { version: 'v24.21.0', path: '/usr/lib/device-agent/node/bin/node' };

describe('versionText', () => {
  it('on a package: the version, then the Node.js it runs on, named as the bundled one', () => {
    expect(versionText('2611.23', node, { path: node.path, runs: true })).toBe(
      'device-agent 2611.23\nNode.js v24.21.0, the one the package bundles (/usr/lib/device-agent/node/bin/node)\n',
    );
  });

  it('on a package run by another Node.js: says which runs, and that it is not the bundled one', () => {
    expect(versionText('2611.23', { version: 'v25.1.0', path: '/usr/bin/node' }, { path: node.path, runs: false })).toBe(
      'device-agent 2611.23\nNode.js v25.1.0 (/usr/bin/node), not the one the package bundles (/usr/lib/device-agent/node/bin/node)\n',
    );
  });

  it('in a checkout or the image (no bundled runtime beside the agent): the Node.js that runs and where', () => {
    expect(versionText('2611.23.1', { version: 'v24.21.0', path: '/usr/local/bin/node' })).toBe(
      'device-agent 2611.23.1\nNode.js v24.21.0 (/usr/local/bin/node)\n',
    );
  });
});
