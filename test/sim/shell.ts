// Runs a received shell command for real, as adbd's legacy `shell:` service
// does: `sh -c CMD` with stdout and stderr merged into one raw stream.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { shellQuote } from './stubs.js';

/**
 * bash rather than dash: only bash lets us word the "not found" error like
 * Android's mksh does. $0 is set to /system/bin/sh for the same reason.
 */
const SHELL = '/bin/bash';

export function notFoundHandler(template: string): string {
  const words = template
    .split(/(\{command\})/)
    .filter((piece) => piece !== '')
    .map((piece) => (piece === '{command}' ? '"$1"' : shellQuote(piece)));
  return `command_not_found_handle() { printf '%s' ${words.join(' ')} "\n" >&2; return 127; }`;
}

export function spawnShell(command: string, binDir: string, cwd: string, notFound: string): ChildProcessWithoutNullStreams {
  const script = `${notFoundHandler(notFound)}\nexec 2>&1\n${command}`;
  return spawn(SHELL, ['--norc', '--noprofile', '-c', script, '/system/bin/sh'], {
    cwd,
    // Only the stubs are reachable; builtins (echo, printf, test) still work.
    // HOME too: bash reads ~/.bashrc when its stdin is a socket, as Node's pipes are.
    env: { PATH: binDir, HOME: cwd, LANG: 'C' },
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group, so killTree also reaches the stubs it started.
    detached: true,
  });
}

export function killTree(child: ChildProcessWithoutNullStreams | undefined): void {
  if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
