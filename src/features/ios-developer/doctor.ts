// The doctor's lines of the iPhone developer services: whether a tunnel
// daemon answers, and what iOS the host's tools support. Read once, bounded
// (2 s a daemon, 10 s a tool): the same reads as the daemon's.
import type { CheckItem } from '../../platforms/doctor.js';
import { DAEMON_NAME } from './daemons.js';
import type { IosDeveloper } from './developer.js';
import { SUPPORT_ROWS, supportOf, versionText } from './support.js';
import { describe } from './tools.js';
import { docPath } from '../../util/package.js';

export async function iosDeveloperItems(part: IosDeveloper): Promise<CheckItem[]> {
  if (part.off) return [];
  await Promise.all([part.tools.refresh(), part.watch.poll()]);
  const daemons = part.watch.daemons();
  const up = daemons.filter((d) => d.state === 'up');
  const tools = part.tools.tools();
  // A host with no iOS tool and no daemon is taken for one without iPhones from iOS 17: one line, no warning.
  if (up.length === 0 && tools.every((t) => t.state === 'absent'))
    return [
      {
        id: 'ios.tools',
        status: 'ok',
        finding: `no iOS 17 tunnel daemon answers and no iOS tool (go-ios, pymobiledevice3) is found: an iPhone from iOS 17 plugged here would be reported "not supported on this host" (${docPath('docs/install/iphones.md')})`,
      },
    ];
  const items: CheckItem[] = [];
  if (up.length === 0) {
    items.push({
      id: 'ios.tunnels',
      status: 'warn',
      finding: `no iOS 17 tunnel daemon answers (${daemons.map((d) => `${DAEMON_NAME[d.kind].name} at ${d.url}: ${d.state === 'up' ? 'up' : d.why}`).join('; ')}): iPhones from iOS 17 are not ready for automation here`,
      advice: `start one: ${[...new Set(daemons.map((d) => DAEMON_NAME[d.kind].start))].join(', or ')}; or set iosDeveloper.tunnelDaemons to [] where another tool keeps the tunnels`,
    });
  } else {
    for (const d of up)
      items.push({
        id: 'ios.tunnels',
        status: 'ok',
        finding: `${DAEMON_NAME[d.kind].name} at ${d.url} answers: ${d.tunnels.length} tunnel(s) listed`,
      });
  }
  const ios17 = supportOf(
    [17, 0],
    tools,
    up.map((d) => d.kind),
  );
  const table = SUPPORT_ROWS.map((r) => `iOS ${r.ios.join('.')}+${r.userspace ? ' (userspace)' : ''}: ${r.tool} ${versionText(r.from)}`).join(', ');
  items.push(
    ios17.kind === 'not-supported'
      ? {
          id: 'ios.tools',
          status: 'warn',
          finding: `iOS tools: ${tools.map(describe).join(', ')}: none supports iOS 17 and later (the table: ${table}); such iPhones are reported "not supported on this host"`,
          advice: `install ${ios17.install}`,
        }
      : {
          id: 'ios.tools',
          status: 'ok',
          finding: `iOS tools: ${tools.map(describe).join(', ')}${ios17.kind === 'unknown' ? ` (${ios17.why})` : ': iOS 17 and later supported'}`,
        },
  );
  return items;
}
