import { execFileSync } from 'node:child_process';
import { relative } from 'node:path';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Three tiers (docs/design/tooling.md, "Test tiers"), run in this order:
//
// - unit: pure and in-process. Its setup file refuses sockets and child
//   processes, so a unit test cannot start an adb server, a simulator, the
//   agent's CLI or a proxy, and the tier stays in seconds.
// - e2e: whatever needs a socket or a process: the compiled CLI against the
//   simulators (test/e2e, test/faults), the status page in real browsers
//   (test/browser), the simulators' own tests, the cloud
//   client against a loopback server, the proxies, openssl, promtool.
// - soak: the long runs (test/soak). In CI only (CI set, as .ci/run does),
//   or through `npm run test:soak`; otherwise skipped, and said so.

/**
 * Test files outside test/e2e and test/faults that need sockets or processes
 * say so in their name: `x.e2e.test.ts`, beside the unit tests of the same
 * folder (tests mirror src/). The unit tier's setup file refuses sockets and
 * processes, so a file that needs them and is not named so fails there.
 */
const E2E_NAMED = 'test/**/*.e2e.test.ts';
/**
 * The e2e files that take longest, longest first (each run alone with
 * `--reporter=json`: the file's endTime - startTime), started first: with
 * nothing cached, as on a clean clone, vitest starts files in the order it
 * finds them, and a file of a minute or more started last is the tier's tail.
 */
export const LONGEST_FIRST = [
  'test/e2e/reliability.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/ghosts.test.ts',
  'test/e2e/charge-power-path.test.ts',
  'test/e2e/freshness.test.ts',
  'test/e2e/usb-layer.test.ts',
  'test/browser/rack.test.ts',
  'test/e2e/offline-power-cycle.test.ts',
  'test/e2e/once.test.ts',
  'test/faults/cloud.test.ts',
  'test/e2e/adb-server-frozen.test.ts',
  'test/e2e/ios-mixed.test.ts',
  'test/monitoring/dashboard.e2e.test.ts',
  'test/monitoring/alert-firing.e2e.test.ts',
  'test/faults/adb.test.ts',
  'test/e2e/doctor.test.ts',
  'test/platforms/android/inventory/tiers.e2e.test.ts',
];

/** vitest's order (tier by tier; in a tier, the longest cached first), with LONGEST_FIRST ahead in its tier. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification): number => {
      const i = LONGEST_FIRST.indexOf(relative(f.project.config.root, f.moduleId));
      return i < 0 ? LONGEST_FIRST.length : i;
    };
    const tiers: TestSpecification[][] = [];
    for (const f of sorted) {
      const last = tiers.at(-1);
      if (last?.[0]?.project.name === f.project.name) last.push(f);
      else tiers.push([f]);
    }
    // Array.prototype.sort is stable: the others keep vitest's order.
    return tiers.flatMap((tier) => tier.sort((a, b) => rank(a) - rank(b)));
  }
}

export const E2E = ['test/e2e/**/*.test.ts', 'test/faults/**/*.test.ts', 'test/browser/**/*.test.ts', E2E_NAMED];

/**
 * The e2e and soak tiers drive Debian's real adb server (1:34), which now
 * and then dies of SIGSEGV while many `adb connect`s are under way (the
 * simulated phones connecting again after a restart): test/sim/adb-server.ts
 * names such a death in its error ("adb server (pid N) died: SIGSEGV").
 * CI30's `completeness.e2e` failed on it (CI26's chaos soak, on a bare
 * ECONNREFUSED to its adb server, most likely too): the harness's adb, not
 * the agent, which outlives a dead adb server (test/faults/adb.test.ts). A
 * test whose own adb server died so runs once more, against that server
 * started again (test/support/adb-revive.ts); any other failure does not.
 */
const HARNESS_ADB_DIED = { count: 1, condition: /^adb server \(pid \d+\) died: SIG[A-Z]+;/ };
const SOAK = ['test/soak/**/*.test.ts'];

// npm sets npm_lifecycle_event to the script it runs.
const soakOn = Boolean(process.env.CI) || process.env.npm_lifecycle_event === 'test:soak';
// The config is read once per project: say it once, and only to vitest (knip, in
// `npm run lint`, reads it too; VITEST is vitest's own mark).
if (!soakOn && process.env.VITEST && !process.env.DEVICE_AGENT_SOAK_SKIP_SAID) {
  process.env.DEVICE_AGENT_SOAK_SKIP_SAID = '1';
  console.warn('soak tier skipped (test/soak): it runs in CI (CI set) and with `npm run test:soak`');
}

// In CI the property tests' cases come from the code (test/support/property-seed.ts):
// the same src/ and test/, the same cases, whatever else a commit changes (a
// note, the docs). FC_SEED=N replays a run; elsewhere each run draws new ones.
if (process.env.FC_SEED === undefined && process.env.CI) process.env.FC_SEED = String(codeSeed());
const setupFiles = ['test/support/property-seed.ts'];

/** 31 bits of the git trees of src/ and test/ at HEAD; 0 outside a git checkout. */
function codeSeed(): number {
  try {
    const trees = execFileSync('git', ['rev-parse', 'HEAD:src', 'HEAD:test'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n');
    return (parseInt(trees[0]!.slice(0, 8), 16) ^ parseInt(trees[1]!.slice(0, 8), 16)) >>> 1;
  } catch {
    return 0;
  }
}

const projects: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'unit',
      include: ['test/**/*.test.ts'],
      exclude: [...E2E, ...SOAK],
      setupFiles: [...setupFiles, 'test/support/unit-tier.ts'],
      // CPU-bound: one file per core (vitest's default on 2 cores is 1).
      maxWorkers: 2,
      // Files share a worker's module cache instead of each loading its own:
      // the tier took 234 CPU s isolated and 84 without, most of it spent
      // importing src/ again for each of its 200 files (docs/design/tooling.md,
      // "Test tiers"). A unit test therefore mocks no
      // module (vi.mock would miss a module another file loaded first): it
      // hands the code under test its I/O, as test/features/usb/follow.test.ts does.
      isolate: false,
      sequence: { groupOrder: 0 },
    },
  },
  {
    extends: true,
    test: {
      name: 'e2e',
      include: E2E,
      // Mostly waiting on other processes and timers (about a quarter of a
      // core each); each file starts its own adb server on a free port and
      // its own cloud double, so files do not share state. Three at once on
      // 2 cores: the real-time bounds are at least 3 times what each wait
      // takes alone (docs/design/tooling.md, "Time in tests"), and a latency
      // the agent promises is shown on virtual time, not here. The bounds CI
      // missed at two and at three (a wedged phone's once, freshness, an
      // alert's going, a restart's first report) are raised so; the 25
      // longest files passed at three beside two CPU-bound processes.
      maxWorkers: 3,
      setupFiles: [...setupFiles, 'test/support/adb-revive.ts', 'test/support/e2e-started.ts'],
      retry: HARNESS_ADB_DIED,
      sequence: { groupOrder: 1 },
    },
  },
];
// The chaos soak alone, after the e2e tier: its agent's in-service count is held to the truth within a point, and
// with the 1,000-cycle soak beside it (which needs a core) a 2-vCPU host starved it. Then the other two at once: each
// bounds its own process's heap, descriptors and sockets (its own agent, adb server and cloud double), which a
// neighbour cannot change, and one mostly waits out a fixed duration (docs/design/tooling.md).
// .ci/run starts the deploy checks when the chaos soak is over (test/support/chaos-over.ts), beside the other two.
const CHAOS = 'test/soak/chaos.test.ts';
if (soakOn)
  projects.push(
    {
      extends: true,
      test: {
        name: 'chaos',
        include: [CHAOS],
        setupFiles: [...setupFiles, 'test/support/adb-revive.ts'],
        retry: HARNESS_ADB_DIED,
        sequence: { groupOrder: 2 },
      },
    },
    {
      extends: true,
      test: {
        name: 'soak',
        include: SOAK,
        exclude: [CHAOS],
        maxWorkers: 2,
        setupFiles: [...setupFiles, 'test/support/adb-revive.ts'],
        retry: HARNESS_ADB_DIED,
        sequence: { groupOrder: 3 },
      },
    },
  );

export default defineConfig({
  test: {
    // The end-to-end suites each start their own adb server and simulated
    // devices; a generous timeout keeps a slow CI machine from flaking.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    sequence: { sequencer: LongestFirst },
    // A developer's runs keep what Vite made of each module (keyed by the
    // file's content, the config and vitest's version, in
    // node_modules/.experimental-vitest-cache; `npx vitest --clearCache`
    // drops it): a run after an edit transforms only what changed, about 5
    // CPU s less for the unit tier. CI runs from a clean clone, where it would only
    // write, and does without it.
    experimental: { fsModuleCache: !process.env.CI },
    projects,
  },
});
