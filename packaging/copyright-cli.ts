// Writes debian/copyright for the package build: the production packages
// of a node_modules directory, read from their package.json and licence files.
//   node dist/packaging/copyright-cli.js NODE_MODULES NODE_VERSION
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/util/package.js';
import { copyrightLines, renderCopyright, type Bundled } from './copyright.js';

const [modulesDir, nodeVersion] = process.argv.slice(2);
if (!modulesDir || !nodeVersion) {
  process.stderr.write('usage: copyright-cli NODE_MODULES NODE_VERSION\n');
  process.exit(2);
}

function packageDirs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .flatMap((e) => (e.name.startsWith('@') ? readdirSync(join(dir, e.name)).map((n) => join(dir, e.name, n)) : [join(dir, e.name)]));
}

const modules: Bundled[] = packageDirs(modulesDir).map((dir) => {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    license?: string;
    author?: string | { name?: string };
  };
  const licenseFile = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  const found = licenseFile ? copyrightLines(readFileSync(join(dir, licenseFile), 'utf8')) : [];
  const author = typeof pkg.author === 'string' ? pkg.author : pkg.author?.name;
  return { name: pkg.name, version: pkg.version, license: pkg.license ?? 'UNKNOWN', copyright: found.length > 0 ? found : author ? [author] : [] };
});

const agent = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { license: string };
process.stdout.write(renderCopyright({ agentLicense: agent.license, nodeVersion, modules }));
