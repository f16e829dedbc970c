// The iPhone developer services' settings: which tunnel daemons the host
// runs (watched, never started) and which tools' versions make the support
// table. Composed into the one schema by src/config/schema.ts.
import type { Field } from '../../config/field.js';

/** The daemons the agent can read: go-ios's tunnel agent and pymobiledevice3's tunneld. */
export const DAEMON_KINDS = ['go-ios', 'tunneld'] as const;
/** The tools whose versions make the support table. */
export const TOOL_NAMES = ['go-ios', 'pymobiledevice3'] as const;

const ENTRY = /^([a-z0-9-]+)=(.+)$/;

/** The entries not `NAME=VALUE` with NAME one of `names` and a VALUE `ok` takes, said after `must`; undefined when none. */
function badEntries(value: string[], names: readonly string[], ok: (value: string) => boolean, must: string) {
  const bad = value.filter((entry) => {
    const m = ENTRY.exec(entry.trim());
    return !m || !names.includes(m[1]!) || !ok(m[2]!);
  });
  return bad.length ? `${must}; got ${bad.map((b) => JSON.stringify(b)).join(', ')}` : undefined;
}

/** `KIND=URL` entries, each an http URL of a daemon of a kind the agent reads. */
export function checkTunnelDaemons(value: string[]) {
  const http = (text: string) => {
    try {
      const url = new URL(text);
      return url.protocol === 'http:' && url.pathname === '/' && url.search === '' && url.username === '';
    } catch {
      return false;
    }
  };
  return badEntries(value, DAEMON_KINDS, http, `must be KIND=URL entries, KIND one of ${DAEMON_KINDS.join(', ')} and URL http://HOST:PORT`);
}

/** `TOOL=COMMAND` entries: a command name on PATH or an absolute path, no blank, no shell. */
export function checkTools(value: string[]) {
  return badEntries(
    value,
    TOOL_NAMES,
    (command) => /^[A-Za-z0-9_./+-]+$/.test(command),
    `must be TOOL=COMMAND entries, TOOL one of ${TOOL_NAMES.join(', ')} and COMMAND a name or a path without blanks`,
  );
}

export const iosDeveloperSettings = {
  'iosDeveloper.tunnelDaemons': {
    type: 'string[]',
    default: ['go-ios=http://127.0.0.1:60105', 'tunneld=http://127.0.0.1:49151'],
    check: checkTunnelDaemons,
    format: 'KIND=URL list (KIND `go-ios` or `tunneld`), or `[]` for off',
    help:
      "the iOS 17 tunnel daemons the host runs, which the agent reads and never starts: go-ios's tunnel agent (`ios tunnel start`, its API at port 60105) and pymobiledevice3's tunneld (port 49151); both default addresses are watched, and one that never answers is not said. " +
      'Each iPhone from iOS 17 has a live tunnel on one of them, a stale one (made before the phone last reconnected, go-ios#712), none, or an unknown one (the daemon that kept it stopped answering): not ready for automation, with what to do, unless live. ' +
      '`[]` turns this off (a lab whose tunnels another tool keeps): no tunnel is judged and no support table either ([iPhones](../install/iphones.md))',
  },
  'iosDeveloper.pollSeconds': {
    type: 'integer',
    default: 10,
    min: 2,
    max: 600,
    help: "how often the tunnel daemons' listings are read (one local HTTP request per daemon); also at once when an iPhone reconnects, so that a stale tunnel is named at the next report",
  },
  'iosDeveloper.tools': {
    type: 'string[]',
    default: ['go-ios=ios', 'pymobiledevice3=pymobiledevice3'],
    check: checkTools,
    format: 'TOOL=COMMAND list (TOOL `go-ios` or `pymobiledevice3`)',
    help: 'the host\'s iOS tools whose versions make the support table (`ios version`, `pymobiledevice3 version`, run at start and hourly, never through a shell): an iPhone whose iOS none of them supports is reported "not supported on this host" with what to install ([the table](../install/iphones.md#which-ios-versions-this-host-supports))',
  },
} as const satisfies Record<string, Field>;
