import { existsSync } from 'node:fs';
import { systemTool } from '../support/system-tool.js';

// Debian's libfaketime (package faketime), preloaded into the agent to step
// its wall clock. With FAKETIME_DONT_FAKE_MONOTONIC only CLOCK_REALTIME
// moves and the monotonic clock goes on, as on a real host when NTP steps.
const LIBS = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1'];

/** The agent's environment for a wall clock read from `stepFile` ("+0", "-3600", ...). */
export function steppedClockEnv(stepFile: string): Record<string, string> {
  systemTool('faketime');
  const faketimeLib = LIBS.find((p) => existsSync(p));
  if (!faketimeLib) throw new Error(`needs libfaketime (Debian package faketime), which is not at ${LIBS.join(' nor ')} on this machine`);
  return {
    LD_PRELOAD: faketimeLib,
    FAKETIME_TIMESTAMP_FILE: stepFile,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}
