// How many cases a property draws (fast-check's numRuns). CI (.ci/run sets
// CI) draws all of them; a run on a developer's machine a share of them (a
// third unless the file says), so that the unit tier stays a loop of seconds
// on a busy machine (issue 41). CI's seed changes with the code and a
// developer's run draws a new one each time (property-seed.ts), so each run
// draws new cases either way.
export function propertyRuns(inCi: number, share = 3): { numRuns: number } {
  return { numRuns: process.env.CI ? inCi : Math.max(1, Math.round(inCi / share)) };
}
