// The rules that read the whole of src/ with TypeScript's checker, run as one
// test file so that one worker builds the program they share
// (src-program.ts) and loads TypeScript. As four files they landed on both
// of the unit tier's workers in two runs of three, and each built it: 23 CPU
// s for the four alone against 17 in one worker (docs/design/tooling.md,
// "The rules over src/ in one file"). Each rule's file says what it checks;
// run one with `npx vitest run test/docs/src-rules.test.ts -t NAME`.
import './architecture.rules.js';
import './report-pipeline.rules.js';
import './facet-writers.rules.js';
import './decision-inputs.rules.js';
