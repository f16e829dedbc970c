// A setup file of the e2e and soak projects: before each test, an adb server
// of the file's that died on its own in an earlier test is started again
// (test/sim/adb-server.ts, reviveCrashed), so that a retry after Debian's
// adb crashed (HARNESS_ADB_DIED, vitest.config.ts) meets a live server.
import { beforeEach } from 'vitest';
import { reviveCrashed } from '../sim/adb-server.js';

beforeEach(async () => {
  await reviveCrashed();
});
