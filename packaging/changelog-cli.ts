// Prints the package's debian changelog from git log (changelog.ts).
//   node dist/packaging/changelog-cli.js REPO VERSION MAINTAINER NOTE
import { execFileSync } from 'node:child_process';
import { renderChangelog, type Commit } from './changelog.js';

const [repo, version, maintainer, note] = process.argv.slice(2);
if (!repo || !version || !maintainer || !note) {
  process.stderr.write('usage: changelog-cli REPO VERSION MAINTAINER NOTE\n');
  process.exit(2);
}
let commits: Commit[] = [];
try {
  const log = execFileSync('git', ['-C', repo, 'log', '--no-merges', '--format=%ct%x09%s'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  commits = log
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf('\t');
      return { time: Number(line.slice(0, tab)), subject: line.slice(tab + 1) };
    });
} catch {
  // Not a git checkout (a source tarball): the one entry of the build itself.
}
process.stdout.write(renderChangelog({ version, maintainer, commits, note }));
