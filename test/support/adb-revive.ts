// A setup file of the e2e and soak projects: before each test, an adb server
// of the file's that died on its own in an earlier test is started again
// (test/sim/adb-server.ts, reviveCrashed), so that a retry after Debian's
// adb crashed (HARNESS_ADB_DIED, vitest.config.ts) meets a live server. A test
// that failed after one of its servers crashed ends with that crash's words,
// which that retry answers, whatever error the test itself met first.
import { afterEach, beforeEach } from 'vitest';
import { crashes, reviveCrashed } from '../sim/adb-server.js';

beforeEach(async () => {
  crashes.length = 0;
  await reviveCrashed();
});

afterEach(({ task }) => {
  if (task.result?.state === 'fail' && crashes.length) throw new Error(`${crashes.join('; ')}; the test failed after it (its own error above)`);
});
