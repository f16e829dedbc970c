// `device-agent --version`: the agent's version and the Node.js that runs it, and on a package whether that is the
// runtime it bundles (ROOT/node/bin/node; a checkout has none there). The launcher loads this module alone for
// `--version`, so the answer costs no more than Node.js's own start.
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { agentVersion, projectRoot } from '../util/package.js';
export { onOutputError } from './output-errors.js';

/** The two lines, pure: `bundled` is the package's runtime, when this is a package. */
export function versionText(version: string, node: { version: string; path: string }, bundled?: { path: string; runs: boolean }) {
  const runtime =
    bundled === undefined
      ? `Node.js ${node.version} (${node.path})`
      : bundled.runs
        ? `Node.js ${node.version}, the one the package bundles (${bundled.path})`
        : `Node.js ${node.version} (${node.path}), not the one the package bundles (${bundled.path})`;
  return `device-agent ${version}\n${runtime}\n`;
}

export function versionOfThisProcess() {
  const node = { version: process.version, path: process.execPath };
  const path = join(projectRoot, 'node', 'bin', 'node');
  if (!existsSync(path)) return versionText(agentVersion, node);
  return versionText(agentVersion, node, { path, runs: realpathSync(path) === realpathSync(node.path) });
}

/** The launcher's entry for `--version` alone, as main.ts's for the rest. */
export function main() {
  process.stdout.write(versionOfThisProcess());
  return Promise.resolve(0);
}
