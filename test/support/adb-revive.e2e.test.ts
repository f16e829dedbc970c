import { afterAll, beforeAll, expect, it } from 'vitest';
import { AdbServer } from '../sim/adb-server.js';

// The whole chain, as CI39 needed it: a file-scoped adb server dies on its
// own in a test's first attempt; the e2e project's retry (HARNESS_ADB_DIED,
// vitest.config.ts) runs the test again, and the setup file
// (adb-revive.ts) has started the server again before it.

const adb = new AdbServer();
let attempts = 0;

beforeAll(async () => {
  await adb.start();
});

afterAll(async () => {
  await adb.stop();
});

it('a test whose file-scoped adb server died on its own runs again against that server started again', async () => {
  attempts++;
  if (attempts === 1) {
    // As Debian's adb dies of SIGSEGV: a signal not sent through kill(), which the server takes for a test's own.
    process.kill(adb.pid!, 'SIGKILL');
    await adb.devices();
    throw new Error('adb.devices() answered from a killed server');
  }
  expect(attempts).toBe(2);
  expect(await adb.devices()).toEqual([]);
});
