import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Issue 42, 9: the image ran its base image's Node (node:24-bookworm-slim, a
// tag that moves), not the pinned `node` devDependency that the checkout and
// the .deb run. A reading of the Dockerfile: test/deploy/container.sh runs
// `node --version` in the built image; this catches the change before a build.

const dockerfile = readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');
const stages = dockerfile.split(/^FROM /m).slice(1);

describe('the Dockerfile', () => {
  it('puts the pinned Node of the build stage on the final image PATH, over the base image one', () => {
    expect(stages).toHaveLength(2);
    const [build, final] = stages as [string, string];
    // The build keeps the devDependency's binary before npm prune drops it, and checks its version.
    expect(build).toMatch(/install -D -m 0755 node_modules\/node\/bin\/node \/opt\/node\/bin\/node/);
    expect(build).toMatch(/devDependencies\.node/);
    expect(build.indexOf('/opt/node/bin/node')).toBeLessThan(build.indexOf('npm prune'));
    expect(final).toMatch(/^COPY --from=build \/opt\/node\/bin\/node \/usr\/local\/bin\/node$/m);
  });
});
