// The soak tier's mark for .ci/run (DEVICE_AGENT_SOAK_STARTED names a file):
// once it is written, the deploy checks start beside the soaks rather than
// after `npm test`. Both mostly wait (the soaks on fixed durations, the
// checks on apt, dpkg and booting their own systems), and neither shares a
// port, file or name with the other (docs/design/tooling.md, "CI:
// `.ci/run`"). The chaos soak writes it once its start
// is over, whether it passed or not: its 30 first inventories on a 3 s probe
// deadline, before any fault, missed their deadlines beside the checks'
// first minutes (CI16), which no lab's start has beside it.
import { appendFileSync } from 'node:fs';

/** Says to .ci/run that the deploy checks may start now; nothing outside it. */
export function markSoakStarted(): void {
  const mark = process.env.DEVICE_AGENT_SOAK_STARTED;
  if (mark) appendFileSync(mark, `${process.pid}\n`);
}
