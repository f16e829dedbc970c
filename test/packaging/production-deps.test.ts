import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// What the agent loads must be a production dependency: the package
// (packaging/deb/build.sh) and the image (Dockerfile) install with
// `npm ci --omit=dev` / `npm prune --omit=dev`, which read package-lock.json.
// Issue 61, 2: pino-pretty was a devDependency, so both dropped it and
// `--log-format pretty` printed JSON as shipped. test/deploy/systemd.sh and
// test/deploy/container.sh show the readable lines of the installed package
// and of the image; this catches the drop before a build.

const root = new URL('../../', import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [join(dir, e.name)] : [],
  );
}

/** The npm package of a bare specifier ('@scope/name/sub' -> '@scope/name'); undefined for a relative path or a builtin. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

// Loaded by name at run time, not imported: each is checked to be named where it is loaded.
const LOADED_BY_NAME: Array<{ name: string; where: string }> = [{ name: 'pino-pretty', where: 'src/log/logger.ts' }];

describe("the agent's modules ship", () => {
  const sources = [...files('src'), ...files('bin')];
  const imported = new Set<string>();
  for (const file of sources) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(?\s*)'([^']+)'/g)) {
      const name = packageOf(m[1]!);
      if (name) imported.add(name);
    }
  }

  it('reads the imports (a check that finds none checks nothing)', () => {
    expect(sources.length).toBeGreaterThan(50);
    expect([...imported]).toEqual(expect.arrayContaining(['pino', '@devicefarmer/adbkit', 'yaml']));
  });

  it('every package src/ and bin/ import, or load by name, is a production dependency that npm ci --omit=dev installs', () => {
    for (const { name, where } of LOADED_BY_NAME) {
      expect(readFileSync(join(root, where), 'utf8'), `${where} loads ${name}`).toContain(`'${name}'`);
      imported.add(name);
    }
    for (const name of imported) {
      expect(pkg.dependencies?.[name], `${name} is not in package.json's dependencies`).toBeDefined();
      expect(lock.packages[`node_modules/${name}`]?.dev, `package-lock.json marks ${name} dev: npm ci --omit=dev leaves it out`).not.toBe(true);
    }
  });
});
