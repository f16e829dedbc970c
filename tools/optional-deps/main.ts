// Run by npm's prepare, on the project's Node 24: installs again, on this
// Node, the optional packages the npm that ran `npm ci` left out for its own
// older Node (missing.ts), with that same npm (npm_execpath), saving
// nothing and running no scripts. Nothing to do when none is missing.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/util/package.js';
import { missingOptional, type LockEntry } from './missing.js';

const lock = JSON.parse(readFileSync(join(projectRoot, 'package-lock.json'), 'utf8')) as { packages?: Record<string, LockEntry> };
const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
const libc = process.platform !== 'linux' ? undefined : report.header?.glibcVersionRuntime ? 'glibc' : 'musl';
const missing = missingOptional(lock.packages ?? {}, (path) => existsSync(join(projectRoot, path)), { platform: process.platform, arch: process.arch, libc });
const npm = process.env.npm_execpath;
if (missing.length && npm) {
  process.stderr.write(
    `device-agent: npm (${process.env.npm_config_user_agent ?? 'its Node.js'}) left out ${missing.join(', ')}, which Node ${process.version} runs: installing them with it\n`,
  );
  const run = spawnSync(process.execPath, [npm, 'install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: projectRoot, stdio: 'inherit' });
  process.exit(run.status ?? 1);
}
