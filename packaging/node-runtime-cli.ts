// Checks the Node.js runtime against packaging/node-runtime.json:
//   node dist/packaging/node-runtime-cli.js installed         the one npm ci installed (run by npm's prepare)
//   node dist/packaging/node-runtime-cli.js pack FILE.json    one the package build fetched (npm pack --json output)
// Exit 0 when it is the pinned one, 1 with one line per problem otherwise.
//   node dist/packaging/node-runtime-cli.js why FILE.json FILE.err
// Prints why that `npm pack --json` failed, in one line (its stdout and stderr).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/util/package.js';
import { checkInstalled, checkTarball, type RuntimePin } from './node-runtime.js';
import { npmFailure } from './npm-error.js';

const read = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const pin = read<RuntimePin>(join(projectRoot, 'packaging', 'node-runtime.json'));

function installed(): string[] {
  const pkg = read<{ devDependencies?: Record<string, string> }>(join(projectRoot, 'package.json'));
  const nodeDir = join(projectRoot, 'node_modules', 'node');
  // An install without dev packages has no bundled runtime to check.
  if (!existsSync(nodeDir)) return [];
  const nested = join(nodeDir, 'node_modules', '.package-lock.json');
  const check = checkInstalled(
    pin,
    pkg.devDependencies?.node,
    read<{ version?: string }>(join(nodeDir, 'package.json')).version,
    existsSync(nested) ? read(nested) : {},
  );
  for (const name of check.unpinned)
    process.stderr.write(`device-agent: the Node.js runtime ${name} is not one the project ships, so its bytes are not checked\n`);
  return check.problems;
}

function packed(file: string): string[] {
  const [entry] = read<Array<{ name?: string; version?: string; integrity?: string }>>(file);
  return checkTarball(pin, entry?.name ?? '(unknown)', entry?.version, entry?.integrity);
}

const [command, arg, errFile] = process.argv.slice(2);
if (command === 'why' && arg && errFile) {
  const text = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
  process.stdout.write(`${npmFailure(text(arg), text(errFile), 'npm pack failed without saying why')}\n`);
  process.exit(0);
}
const problems = command === 'installed' ? installed() : command === 'pack' && arg ? packed(arg) : undefined;
if (problems === undefined) {
  process.stderr.write('usage: node-runtime-cli.js installed | pack FILE.json | why FILE.json FILE.err\n');
  process.exit(2);
}
for (const p of problems) process.stderr.write(`device-agent: the Node.js runtime: ${p}\n`);
process.exit(problems.length ? 1 : 0);
