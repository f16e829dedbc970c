// The soak tier's setup file: when .ci/run asks (DEVICE_AGENT_SOAK_STARTED
// names a file), it marks that the soak tier has begun, so that the deploy
// checks start beside it rather than after `npm test`. Both mostly wait (the
// soaks on fixed durations, the checks on apt, dpkg and booting their own
// systems), and neither shares a port, file or name with the other
// (docs/design/tooling.md, "CI: the deploy checks beside the soaks").
import { appendFileSync } from 'node:fs';

const mark = process.env.DEVICE_AGENT_SOAK_STARTED;
if (mark) appendFileSync(mark, `${process.pid}\n`);
