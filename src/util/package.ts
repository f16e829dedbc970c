import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The same module runs from src/ (tests) and from dist/src/ (the CLI), so
// the project root is found by walking up to our package.json.
function findRoot() {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate) && (JSON.parse(readFileSync(candidate, 'utf8')) as { name?: unknown }).name === 'device-agent') return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('device-agent: package.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export const projectRoot = findRoot();

export const agentVersion = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** Where the Debian package installs the agent (packaging/deb/build.sh): an agent running from there is a packaged host's. */
export const packaged = projectRoot === '/usr/lib/device-agent';

/**
 * A page of docs/ as a path that exists where the agent runs: the package ships the pages its output names in
 * /usr/share/doc/device-agent (build.sh), a checkout has them in place.
 */
export function docPath(page: string, onPackage = packaged) {
  return onPackage ? `/usr/share/doc/device-agent/${basename(page)}` : join(projectRoot, page);
}
