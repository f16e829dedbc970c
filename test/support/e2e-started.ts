// The e2e tier's mark (DEVICE_AGENT_E2E_STARTED names a file): a setup file
// of the e2e project, so it is written as the tier's first file starts.
// tools/test-and-lint.sh then starts the lint, and .ci/run the deploy
// checks' preparation (test/deploy/prepare.sh), both niced beside the tier:
// the unit tier before it keeps both cores busy, the e2e tier mostly waits.
import { appendFileSync } from 'node:fs';

const mark = process.env.DEVICE_AGENT_E2E_STARTED;
if (mark) appendFileSync(mark, `${process.pid}\n`);
