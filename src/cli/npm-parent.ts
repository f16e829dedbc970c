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
  // npm is the parent or, where /proc says, the grandparent (npm → sh → node): while both stay, so does npm.
  const parent = process.ppid;
  const grandparent = parentOf(parent);
  const timer = setInterval(() => {
    if (process.ppid === parent && (grandparent === undefined || parentOf(parent) === grandparent)) return;
    clearInterval(timer);
    process.stderr.write('device-agent: the npm process that started this run is gone; stopping as on SIGTERM\n');
    process.kill(process.pid, 'SIGTERM');
  }, 1000);
  timer.unref();
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
