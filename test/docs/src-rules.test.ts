// The rules that read the whole of src/ with TypeScript's checker, run as one
// test file so that one worker builds the program they share
// (src-program.ts) and loads TypeScript: as files of their own they land on
// both of the unit tier's workers, and each builds it (docs/design/tooling.md,
// "Test tiers"). Each rule's file says what it checks; run one with
// `npx vitest run test/docs/src-rules.test.ts -t NAME`.
import './architecture.rules.js';
import './report-pipeline.rules.js';
import './decision-inputs.rules.js';
import './inventory-store.rules.js';
import './facet-owners.rules.js';
