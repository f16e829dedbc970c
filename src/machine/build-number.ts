import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The agent's build number: DEVICE_AGENT_BUILD_NUMBER when a packager sets
 * it, else the commit of the checkout the agent runs from, else its version.
 */
export function buildNumber(root: string, version: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.DEVICE_AGENT_BUILD_NUMBER) return env.DEVICE_AGENT_BUILD_NUMBER;
  try {
    const head = readFileSync(join(root, '.git', 'HEAD'), 'utf8').trim();
    const ref = /^ref: (.+)$/.exec(head)?.[1];
    const commit = ref ? readFileSync(join(root, '.git', ref), 'utf8').trim() : head;
    if (/^[0-9a-f]{40}$/.test(commit)) return commit.slice(0, 12);
  } catch {
    // not a git checkout (packaged install): fall through
  }
  return version;
}
