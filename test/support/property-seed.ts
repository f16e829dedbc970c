// Every tier's setup file: property tests (fast-check) draw their cases from
// FC_SEED when it is set. vitest.config.ts sets it from the code (the git
// trees of src/ and test/) in CI, so that the same code always gets the same
// cases (a clean clone's run says what the landing run will, whatever docs
// came after it), and each change to the code draws new ones. Without it,
// each run draws new cases; a failure prints its seed either way.
import fc from 'fast-check';

const seed = process.env.FC_SEED;
if (seed !== undefined && seed !== '') fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed) });
