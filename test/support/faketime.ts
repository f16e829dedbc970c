import { existsSync } from 'node:fs';
import { systemTool } from './system-tool.js';

// Debian's libfaketime (package faketime), preloaded straight, never through
// its `faketime` wrapper: the wrapper makes /faketime_sem_<its pid> with
// O_EXCL and gives up ("sem_open: File exists") when one is left there, and
// the library leaves one for every preloaded process that is killed or execs,
// which the agent's tests do all day on a shared /dev/shm. The library itself
// carries on without its shared memory when the name is taken.
const LIBS = ['x86_64-linux-gnu', 'aarch64-linux-gnu'];

function library(multithreaded: boolean): string {
  systemTool('faketime');
  const paths = LIBS.map((arch) => `/usr/lib/${arch}/faketime/libfaketime${multithreaded ? 'MT' : ''}.so.1`);
  const found = paths.find((p) => existsSync(p));
  if (!found) throw new Error(`needs libfaketime (Debian package faketime), which is not at ${paths.join(' nor ')} on this machine`);
  return found;
}

/** The agent's environment for a wall clock read from `stepFile` ("+0", "-3600", ...). With
 * FAKETIME_DONT_FAKE_MONOTONIC only CLOCK_REALTIME moves and the monotonic clock goes on, as on a
 * real host when NTP steps. */
export function steppedClockEnv(stepFile: string): Record<string, string> {
  return {
    LD_PRELOAD: library(true),
    FAKETIME_TIMESTAMP_FILE: stepFile,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}

/** A command's environment for a wall clock that starts at `at` ("2020-06-01 12:00:00", local time) and runs on. */
export function startingAtEnv(at: string): Record<string, string> {
  return { LD_PRELOAD: library(false), FAKETIME: `@${at}` };
}
