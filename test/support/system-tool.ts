import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';

// The system tools the tests run (adb, ansible-playbook, squid, ...), looked
// up before a test runs one: a missing tool fails the test with one line
// naming it and its Debian package, not with a spawn's ENOENT or an empty
// output (issue 70: the role's post-check said "expected '' to contain
// 'ok: [localhost]'" where ansible-playbook was missing). The tools are
// those of tools/system-tools.txt, which the README's install command
// installs; a tool it does not list is refused, so that a new one is added there.

// From test/support, or dist/test/support (the bench and the deploy bed run the simulators from dist/).
const LIST = ['../../tools/system-tools.txt', '../../../tools/system-tools.txt'].map((p) => new URL(p, import.meta.url)).find((u) => existsSync(u));
const INSTALL = "sh tools/install-system-tools.sh, the README's install command, installs every tool the tests run";
// nginx and squid are in /usr/sbin, off a user's PATH on Debian.
const SBIN = ['/usr/local/sbin', '/usr/sbin', '/sbin'];

/** tools/system-tools.txt as tool -> Debian package. */
export function toolPackages(text: string): Map<string, string> {
  const packages = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.trim()) continue;
    const [tools, pkg] = line.trim().split(/\s+/);
    for (const tool of tools!.split(',')) packages.set(tool, pkg!);
  }
  return packages;
}

/**
 * The path of `tool` (a name, or a path as PROMTOOL_BIN gives one), which a
 * test is about to run. Throws, naming its package, when this host lacks it.
 */
export function systemTool(tool: string, path = process.env.PATH ?? ''): string {
  const name = basename(tool);
  const pkg = toolPackages(LIST ? readFileSync(LIST, 'utf8') : '').get(name);
  if (pkg === undefined)
    throw new Error(`${name} is not in tools/system-tools.txt: add it there with its Debian package, so that the README's install command installs it`);
  const candidates = tool.includes('/') ? [tool] : [...path.split(delimiter).filter(Boolean), ...SBIN].map((dir) => join(dir, tool));
  const found = candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  });
  if (found === undefined)
    throw new Error(`needs ${name} (Debian package ${pkg}): not installed here (${candidates.length > 1 ? 'not on PATH' : tool}); ${INSTALL}`);
  return found;
}
