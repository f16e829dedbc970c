// Runs a received shell command for real, as adbd's legacy `shell:` service
// does: `sh -c CMD` with stdout and stderr merged into one raw stream.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { shellQuote, type StubSet } from './stubs.js';

/**
 * bash rather than dash: only bash lets us word the "not found" error like
 * Android's mksh does. $0 is set to /system/bin/sh for the same reason.
 */
const SHELL = '/bin/bash';

/**
 * `env` adds variables the stubs read: SIM_BOOT_US (the simulated boot, for
 * /proc/uptime), SIM_LAG_NAMES / SIM_LAG_S / SIM_LAG_MS (commands that answer late).
 */
export function spawnShell(command: string, stubs: StubSet, cwd: string, env: Record<string, string> = {}): ChildProcessWithoutNullStreams {
  const script = `. ${shellQuote(stubs.prelude)}\nexec 2>&1\n${command}`;
  return spawn(SHELL, ['--norc', '--noprofile', '-c', script, '/system/bin/sh'], {
    cwd,
    // Only the stubs are reachable; builtins (echo, printf, test) still work.
    // HOME too: bash reads ~/.bashrc when its stdin is a socket, as Node's pipes are.
    env: { ...env, PATH: stubs.bin, HOME: cwd, LANG: 'C' },
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so killTree also reaches what it started.
    detached: true,
  });
}

export function killTree(child: ChildProcessWithoutNullStreams | undefined): void {
  // The group may outlive bash (a background job), so it is killed regardless.
  if (!child || child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
