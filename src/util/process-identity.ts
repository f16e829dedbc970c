import { readFileSync } from 'node:fs';

// Who a pid is, past its number. A pid is handed out again once its process is gone (after a reboot, the state
// directory's kept pid is often some other service's), so a kept pid that is alive does not say the process is still
// the one that kept it. The boot's id and the process's start time (proc_pid_stat(5): /proc/PID/stat field 22, in clock
// ticks since boot) name one process for good.

/**
 * The start time (field 22) of a /proc/PID/stat line, or undefined for a line that is not one. Pure. The command name
 * (field 2) is in parentheses and may hold spaces and parentheses itself: the fields after it are counted from its last
 * closing parenthesis.
 */
export function startTimeOf(stat: string) {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  // Field 3 (state) is the first after the name, so field 22 is the 20th.
  const start = stat
    .slice(close + 1)
    .trim()
    .split(/\s+/)[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}

/**
 * The identity of a live process: its boot and its start time, or undefined where it cannot be read (no /proc, a
 * process gone or hidden).
 */
export function processIdentity(pid: number, proc = '/proc') {
  try {
    const boot = readFileSync(`${proc}/sys/kernel/random/boot_id`, 'utf8').trim();
    const start = startTimeOf(readFileSync(`${proc}/${pid}/stat`, 'utf8'));
    return boot && start ? `${boot}/${start}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a process with this pid exists. One of another user counts (EPERM: it exists, this process may not signal
 * it); a pid that is not a positive integer names no process (0 and below would signal a group).
 */
export function pidAlive(pid: number) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
