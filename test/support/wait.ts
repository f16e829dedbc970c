// Waiting in tests. Prefer waiting for the condition (cloud.waitForPut,
// agent.waitForLog); a sleep is for showing that something does not happen
// within a time.

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
