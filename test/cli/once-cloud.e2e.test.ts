import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onceCloud } from '../../src/cli/once.js';
import { ONCE_CLOUD_SECONDS } from '../../src/cli/commands.js';
import { CloudUnavailableError } from '../../src/cloud/errors.js';
import { loadSettings } from '../../src/config/load.js';
import { silentLogger } from '../../src/log/logger.js';
import { sampleReport } from '../cloud-double/sample.js';

// once's try at the cloud (issue 70): its one attempt ends within ONCE_CLOUD_SECONDS on the clock whatever the request
// timeout, so that an unreachable cloud is said within seconds (refused and unresolvable: test/e2e/once.test.ts).

const credentials = { username: 'lab', apiKey: 'key-0123456789', source: 'test' };

function client(port: number) {
  // The longest request timeout there is: once cuts it.
  const settings = loadSettings({ env: { DEVICE_AGENT_BASE_URL: `http://127.0.0.1:${port}/v1`, DEVICE_AGENT_REQUEST_TIMEOUT_SECONDS: '600' } });
  return onceCloud(settings, credentials, silentLogger());
}

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const s of sockets.splice(0)) s.destroy();
  server?.close();
});

describe("once's cloud client", () => {
  it(`a cloud that never answers: one attempt, over at ${ONCE_CLOUD_SECONDS} s on the clock, nothing left to retry`, async () => {
    const connected = new Promise<void>((resolve) => {
      server = createServer((socket) => {
        sockets.push(socket);
        resolve();
      });
    });
    const port = await new Promise<number>((resolve) => server!.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port)));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let outcome: unknown;
    void client(port)
      .putDevices(sampleReport())
      .then(
        (answer) => (outcome = answer),
        (error: unknown) => (outcome = error),
      );
    await connected;
    await vi.advanceTimersByTimeAsync(ONCE_CLOUD_SECONDS * 1000 - 1);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toBeInstanceOf(CloudUnavailableError);
    expect((outcome as CloudUnavailableError).message).toContain(`no answer within ${ONCE_CLOUD_SECONDS * 1000} ms`);
    expect(sockets).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
