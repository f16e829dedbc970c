import { readFileSync } from 'node:fs';

/**
 * `device-agent run` through npm runs as npm → sh → node: npm exits 130 or 143 whatever the agent does, and a SIGTERM to
 * npm alone leaves the agent running unsupervised (npm/run-script#142, npm/cli#6547). So one line says how to run the
 * daemon instead, and when its parent goes away the agent stops as on SIGTERM.
 */
export function guardNpmParent(npmCommand: string) {
  process.stderr.write(
    `device-agent: started through npm (${npmCommand}): npm exits 130 or 143 on Ctrl-C or SIGTERM, not the agent's 0, ` +
      'and does not pass SIGTERM on. Under a supervisor run /usr/bin/device-agent run (Debian package) or ' +
      'node_modules/.bin/node bin/device-agent.js run (checkout) directly. This run stops when npm goes away.\n',
  );
  const ancestors = lineage(process.ppid);
  const timer = setInterval(() => {
    if (sameLineage(ancestors)) return;
    clearInterval(timer);
    process.stderr.write('device-agent: the npm process that started this run is gone; stopping as on SIGTERM\n');
    process.kill(process.pid, 'SIGTERM');
  }, 1000);
  timer.unref();
}

/** The parent and, where /proc says, the grandparent: npm may be either (npm → sh → node). */
function lineage(parent: number) {
  const grandparent = parentOf(parent);
  return grandparent === undefined ? [parent] : [parent, grandparent];
}

function sameLineage(ancestors: number[]) {
  if (process.ppid !== ancestors[0]) return false;
  return ancestors.length < 2 || parentOf(ancestors[0]) === ancestors[1];
}

/** The parent pid of a process from /proc/PID/stat (Linux); undefined when it is gone or there is no /proc. */
export function parentOf(pid: number) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so the fields are counted from the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}
