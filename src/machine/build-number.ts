import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The file a package or image build writes beside package.json: the commit it was built from, one line. */
const BUILD_NUMBER_FILE = 'build-number';

const COMMIT = /^[0-9a-f]{40}$/;

/**
 * The agent's build number: DEVICE_AGENT_BUILD_NUMBER when set, else what the package or image build wrote into
 * `build-number` (an installed copy has no .git), else the commit of the checkout the agent runs from, else its
 * version.
 */
export function buildNumber(root: string, version: string, env: NodeJS.ProcessEnv = process.env) {
  if (env.DEVICE_AGENT_BUILD_NUMBER) return env.DEVICE_AGENT_BUILD_NUMBER;
  const stamped = readLine(join(root, BUILD_NUMBER_FILE));
  if (stamped) return stamped;
  const commit = checkoutCommit(root);
  return commit ? commit.slice(0, 12) : version;
}

/** HEAD's commit, read from the files: no git process is spawned. */
function checkoutCommit(root: string) {
  // In a linked worktree (git worktree add) .git is a file naming the real git directory, and branches live in the main
  // checkout's directory.
  const pointer = /^gitdir: (.+)$/.exec(readLine(join(root, '.git')) ?? '')?.[1];
  const gitDir = pointer ? resolve(root, pointer) : join(root, '.git');
  const common = readLine(join(gitDir, 'commondir'));
  const commonDir = common ? resolve(gitDir, common) : gitDir;
  const head = readLine(join(gitDir, 'HEAD'));
  const ref = head && /^ref: (.+)$/.exec(head)?.[1];
  if (!ref) return head && COMMIT.test(head) ? head : undefined;
  const loose = readLine(join(gitDir, ref)) ?? readLine(join(commonDir, ref));
  if (loose && COMMIT.test(loose)) return loose;
  // After `git gc` the branch may be only in packed-refs: "<commit> <ref>" lines.
  const packed = readText(join(commonDir, 'packed-refs'))
    ?.split('\n')
    .find((l) => l.endsWith(` ${ref}`))
    ?.split(' ')[0];
  return packed && COMMIT.test(packed) ? packed : undefined;
}

function readText(file: string) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // absent: the next source is asked
  }
}

function readLine(file: string) {
  return readText(file)?.split('\n')[0]!.trim() || undefined;
}
