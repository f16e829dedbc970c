// Waiting in tests. Prefer waiting for the condition (cloud.waitForPut,
// agent.waitForLog); a sleep is for showing that something does not happen
// within a time.

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Resolves once `condition` holds (asked every 50 ms); rejects after `timeoutMs`, saying what was waited for. */
export async function waitFor(condition: () => boolean, timeoutMs: number, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await sleep(50);
  }
}
