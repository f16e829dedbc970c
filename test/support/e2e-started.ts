// The e2e tier's mark for .ci/run (DEVICE_AGENT_E2E_STARTED names a file): a
// setup file of the e2e project, so it is written as the tier's first file
// starts. .ci/run then builds the deploy checks' packages, niced, beside the
// tier (test/deploy/packages.sh): the unit tier before it keeps both cores
// busy, the e2e tier mostly waits.
import { appendFileSync } from 'node:fs';

const mark = process.env.DEVICE_AGENT_E2E_STARTED;
if (mark) appendFileSync(mark, `${process.pid}\n`);
