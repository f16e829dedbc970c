// Waiting in tests: poll for the condition the test is about rather than
// sleep for a guessed time, so a test goes on as soon as it may and waits
// longer only when the machine is slow.

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it gives a value other than undefined or false; throws naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 15_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
