// What the agent says of one iPhone's developer services on this host: the
// support table's word, else its tunnel's; pure. A phone before iOS 17, or
// whose version does not read, has nothing said. Said as data: a udid goes
// into a command only when it reads as a udid.
import { DAEMON_NAME } from './daemons.js';
import { iosVersionOf, type Support } from './support.js';
import type { DaemonRef, TunnelVerdict } from './tunnel-state.js';

export interface Judgement {
  /** list's TUNNEL cell. */
  cell: string;
  /** Said in the device's message; none when all is well. */
  note?: string;
  /** Appium cannot run on it now. */
  notReady: boolean;
  /** The bounded label of /metrics. */
  state: 'live' | 'stale' | 'none' | 'unknown' | 'no-daemon' | 'not-supported';
}

const UDID_IN_COMMAND = /^[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{16}$|^[0-9A-Fa-f]{40}$/;

/** From iOS 17 a phone's developer services need a tunnel; `version` is its ProductVersion. */
export function needsTunnel(version: string | undefined) {
  const v = iosVersionOf(version);
  return v !== undefined && v[0] >= 17;
}

export function judgePhone(udid: string, version: string | undefined, support: Support, tunnel: TunnelVerdict): Judgement | undefined {
  if (!needsTunnel(version)) return undefined;
  if (support.kind === 'not-supported')
    return judged(
      'not-supported',
      `not supported on this host: iOS ${version} needs an iOS 17 tunnel daemon, and this host's tools do not give one for it: install ${support.install}`,
    );
  const u = UDID_IN_COMMAND.test(udid) ? udid : 'UDID';
  switch (tunnel.state) {
    case 'live':
      return judged('live', undefined, tunnel.stale > 0 ? `live (+${tunnel.stale} stale)` : 'live');
    case 'stale': {
      const { daemon, tunnel: t } = tunnel;
      const why =
        tunnel.why === 'no-port'
          ? 'it lists RSD port 0 for it'
          : 'it was made before the phone last connected (a reboot or a replug), and the daemon still lists it (go-ios#712)';
      return judged(
        'stale',
        `not ready for automation: its iOS 17 tunnel on ${where(daemon)} (${JSON.stringify(t.address)} port ${t.port}) is stale: ${why}; have the daemon drop it and make a new one: ${dropCommand(daemon, u)}`,
      );
    }
    case 'none':
      return judged(
        'none',
        `not ready for automation: no iOS 17 tunnel for it on ${tunnel.daemons.map(where).join(' or ')}: the daemon makes one for a phone it can pair with; if none comes, see its log (Developer Mode off, Trust not tapped, or a tunnel it could not start)`,
      );
    case 'unknown':
      return judged(
        'unknown',
        `not ready for automation: its iOS 17 tunnel is unknown: ${tunnel.daemons.map((d) => `${where(d)} ${d.state === 'down' ? 'does not answer' : d.state === 'refusing' ? 'refuses its listing' : 'answers garbage'} (${d.why})`).join('; ')}: restart it (${tunnel.daemons.map((d) => DAEMON_NAME[d.kind].start).join(', or ')})`,
      );
    case 'no-daemon':
      return judged(
        'no-daemon',
        `not ready for automation: no iOS 17 tunnel daemon answers on this host (${tunnel.daemons.map(where).join(', ')}): start one: ${[...new Set(tunnel.daemons.map((d) => DAEMON_NAME[d.kind].start))].join(', or ')}`,
      );
  }
}

/** A judgement: every state but live is not ready, and its cell its name in words. */
function judged(state: Judgement['state'], note?: string, cell = state.replace('-', ' ')) {
  return { cell, state, notReady: state !== 'live', note };
}

function where(d: DaemonRef) {
  return `${DAEMON_NAME[d.kind].name} at ${d.url}`;
}

function dropCommand(d: DaemonRef, udid: string) {
  const url = d.url.replace(/\/$/, '');
  return d.kind === 'go-ios'
    ? `\`curl -X DELETE ${url}/tunnel/${udid}\` (or \`ios tunnel refresh --udid=${udid}\`, go-ios 1.2.0 and later, #738); the agent then makes a new one`
    : `\`curl '${url}/cancel?udid=${udid}'\`, then \`curl '${url}/start-tunnel?udid=${udid}'\``;
}
