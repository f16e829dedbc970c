import { afterAll, beforeAll, expect, it } from 'vitest';
import { AdbServer } from '../sim/adb-server.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';

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

it('a set-up waiting for its phones meets the server started again with them when it dies on its own, as a hook is not retried', async () => {
  const phone = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'REVIVE0001') });
  const port = await phone.start();
  try {
    await adb.connect(port);
    process.kill(adb.pid!, 'SIGKILL');
    expect(await adb.crashWithin(5_000)).toMatch(/died: SIGKILL/);
    await adb.waitForStates(new Map([[`127.0.0.1:${port}`, 'device']]), 20_000);
    expect(adb.running).toBe(true);
  } finally {
    await phone.stop();
  }
});

let silentAttempts = 0;

it('a test that fails on its own words after its server died, the server started again since (a bed between tests), runs again', async () => {
  silentAttempts++;
  if (silentAttempts === 1) {
    process.kill(adb.pid!, 'SIGKILL');
    expect(await adb.crashWithin(5_000)).toMatch(/died: SIGKILL/);
    // As DaemonBed.reset() does after each test: started again, the crash forgotten by the server.
    await adb.start();
    expect(adb.crash).toBeUndefined();
    throw new Error('no matching log line within 30000 ms');
  }
  expect(silentAttempts).toBe(2);
});
