// Prints whether the npm registry has a newer Node.js of the bundled line
// (node-release.ts), asking `npm view node@MAJOR version --json` under a
// deadline; never fails the build, only says.
//   node dist/packaging/node-release-cli.js BUNDLED_VERSION [TIMEOUT_SECONDS]
import { execFile } from 'node:child_process';
import { releaseLine } from './node-release.js';
import { npmFailure } from './npm-error.js';

const [bundled, timeout = '20'] = process.argv.slice(2);
if (!bundled) {
  process.stderr.write('usage: node-release-cli BUNDLED_VERSION [TIMEOUT_SECONDS]\n');
  process.exit(2);
}
const major = bundled.split('.')[0]!;
execFile(
  'npm',
  ['view', `node@${major}`, 'version', '--json', '--loglevel=error'],
  { timeout: Number(timeout) * 1000, maxBuffer: 4 * 1024 * 1024 },
  (error, stdout, stderr) => {
    let versions: string[] | { error: string };
    if (error) versions = { error: error.killed ? `no answer within ${timeout} s` : npmFailure(stdout, stderr, error.message.split('\n')[0]!) };
    else {
      try {
        const parsed = JSON.parse(stdout) as unknown;
        versions = (Array.isArray(parsed) ? parsed : [parsed]).map(String);
      } catch {
        versions = { error: 'an answer that is not JSON' };
      }
    }
    process.stdout.write(`${releaseLine(bundled, versions)}\n`);
  },
);
