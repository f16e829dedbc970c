// The version from the command line, for the package build and releases:
//   node dist/packaging/version-cli.js check VERSION    exit 0 when VERSION is YYMM.DD[.N], else 2 and why
//   node dist/packaging/version-cli.js next [VERSION]    the version of a build made now after VERSION (default: package.json's)
//   node dist/packaging/version-cli.js bump              writes that version into package.json, package-lock.json and compose.yaml's image tags
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/util/package.js';
import { formatVersion, nextVersion, parseVersion } from './version.js';

const FORMAT = 'YYMM.DD, or YYMM.DD.N for the further builds of a day (e.g. 2611.23 or 2611.23.1)';

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function current(): string {
  return readJson(join(projectRoot, 'package.json')).version as string;
}

function parsed(text: string, where: string) {
  const v = parseVersion(text);
  if (!v) {
    process.stderr.write(`version-cli: ${where} "${text}" is not ${FORMAT}\n`);
    process.exit(2);
  }
  return v;
}

const [command, arg] = process.argv.slice(2);
if (command === 'check' && arg !== undefined) {
  parsed(arg, 'version');
} else if (command === 'next') {
  process.stdout.write(`${formatVersion(nextVersion(parsed(arg ?? current(), arg ? 'version' : 'package.json version'), new Date()))}\n`);
} else if (command === 'bump') {
  // A version of another scheme (before the first dated build) is simply replaced.
  const next = formatVersion(nextVersion(parseVersion(current()), new Date()));
  // Both files carry the root version; npm version refuses a version that is not semver.
  for (const name of ['package.json', 'package-lock.json']) {
    const file = join(projectRoot, name);
    const json = readJson(file);
    json.version = next;
    const packages = json.packages as Record<string, Record<string, unknown>> | undefined;
    if (packages?.['']) packages[''].version = next;
    writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
  }
  // compose.yaml runs the image of this version, the tag npm run image builds.
  const compose = join(projectRoot, 'compose.yaml');
  writeFileSync(compose, readFileSync(compose, 'utf8').replace(/^(\s*image: device-agent:)\S+$/gm, `$1${next}`));
  process.stdout.write(`${next}\n`);
} else {
  process.stderr.write('usage: version-cli check VERSION | next [VERSION] | bump\n');
  process.exit(2);
}
