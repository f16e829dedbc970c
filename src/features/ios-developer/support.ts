// Which iOS versions this host's tools can automate, and what to install for
// a phone they cannot: pure. From iOS 17, developer services sit behind a
// tunnel that a daemon on the host keeps (go-ios's tunnel agent or
// pymobiledevice3's tunneld); before 17, usbmuxd and lockdown suffice, which
// the agent already needs for the phone to be listed at all.
//
// The table: each row a tool, the first version that does something, the
// iOS versions it does it for, and where that is written. Only what a
// tool's history shows is a row; a version not in the table is no bound.
import type { DaemonKind } from './daemons.js';
import type { TOOL_NAMES } from './settings.js';

export type ToolName = (typeof TOOL_NAMES)[number];

/** The daemon each tool runs. */
export const DAEMON_OF: Readonly<Record<ToolName, DaemonKind>> = { 'go-ios': 'go-ios', pymobiledevice3: 'tunneld' };

type Version = readonly [number, number, number];

export interface SupportRow {
  tool: ToolName;
  from: Version;
  /** The first iOS version (major, minor) the row is for. */
  ios: readonly [number, number];
  /** go-ios's userspace TUN only (`ios tunnel start --userspace`). */
  userspace?: true;
  what: string;
  source: string;
}

export const SUPPORT_ROWS: readonly SupportRow[] = [
  {
    tool: 'go-ios',
    from: [1, 0, 122],
    ios: [17, 0],
    what: 'tunnels for iOS 17 (QUIC for 17.0-17.3, the lockdown tunnel from 17.4)',
    source: 'go-ios #341 (ce74125, "Start QUIC tunnels on iOS 17") and #412 (6038615, "use Lockdown tunnel for newer devices"), first in v1.0.122',
  },
  {
    tool: 'go-ios',
    from: [1, 2, 0],
    ios: [18, 2],
    userspace: true,
    what: 'the userspace tunnel for iOS 18.2 and later (TLS-PSK)',
    source: 'go-ios #748 (cc677ee, "TLS-PSK transport (iOS 18.2+)"), first in v1.2.0',
  },
  {
    tool: 'pymobiledevice3',
    from: [2, 21, 0],
    ios: [17, 0],
    what: 'tunneld, the tunnel daemon for iOS 17',
    source: 'pymobiledevice3 49d6e0f8 ("remote: Add `tunneld` support"), first in v2.21.0',
  },
];

/** How each tool is installed and its daemon started, for "what to install". */
const INSTALL: Readonly<Record<ToolName, string>> = {
  'go-ios': 'go-ios (`npm install -g go-ios` or its release binary `ios`), then `ios tunnel start`',
  pymobiledevice3: 'pymobiledevice3 (`python3 -m pip install -U pymobiledevice3`), then `pymobiledevice3 remote tunneld`',
};

/** A tool as found on the host: absent, found with a version, or found with none that reads. */
export type ToolFound = { tool: ToolName } & ({ state: 'absent' } | { state: 'found'; version: Version } | { state: 'unreadable'; said: string });

/**
 * `ios version` (go-ios main.go `printVersion`): `{"version":"1.3.2"}`, or
 * the bare version with `--nojson`; a release build's version is the tag's
 * number (release.yml writes it over "local-build"), a build from source
 * says `local-build`: no version.
 */
export function parseGoIosVersion(stdout: string) {
  const text = stdout.trim();
  let raw = text;
  if (text.startsWith('{')) {
    try {
      const v = (JSON.parse(text) as { version?: unknown }).version;
      raw = typeof v === 'string' ? v : '';
    } catch {
      return undefined;
    }
  }
  return versionOf(raw);
}

/**
 * `pymobiledevice3 version` (cli/version.py, from v2.31.1): the package's
 * `__version__` on one line, or "version could not be determined. please
 * first install/build the package"; older versions have no such command.
 */
export function parsePymobiledevice3Version(stdout: string) {
  return versionOf(stdout.trim());
}

function versionOf(raw: string): Version | undefined {
  const m = /^v?(\d{1,4})\.(\d{1,4})\.(\d{1,6})$/.exec(raw.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function versionText(v: Version) {
  return v.join('.');
}

/** Whether a version is `min` or later, part by part (both of one length). */
function atLeast(v: readonly number[], min: readonly number[]) {
  const i = v.findIndex((part, j) => part !== min[j]);
  return i < 0 || v[i]! > min[i]!;
}

/** "17.5.1" as major and minor; undefined when it does not read. */
export function iosVersionOf(text: string | undefined): readonly [number, number] | undefined {
  const m = /^(\d{1,3})(?:\.(\d{1,3}))?(?:\.\d{1,3})?$/.exec(text?.trim() ?? '');
  return m ? [Number(m[1]), Number(m[2] ?? 0)] : undefined;
}

export type Support =
  /** Nothing on the host is needed beyond usbmuxd and lockdown (before iOS 17), or a tool does it. */
  | { kind: 'supported'; by?: ToolName }
  /** A tool or daemon is there whose version does not read: not called unsupported. */
  | { kind: 'unknown'; why: string }
  | { kind: 'not-supported'; install: string };

/**
 * Whether this host's tools support a phone of iOS `ios`. `tools`: each
 * tool as found; `daemonsUp`: the daemons that answer now (a tool whose
 * daemon answers is there, though its binary is not on the agent's PATH);
 * `userspace`: whether the phone's tunnel is go-ios's userspace one, when
 * its listing says.
 */
export function supportOf(ios: readonly [number, number], tools: readonly ToolFound[], daemonsUp: readonly DaemonKind[], userspace?: boolean): Support {
  if (ios[0] < 17) return { kind: 'supported' };
  let unknown: string | undefined;
  const needs: string[] = [];
  for (const tool of ['go-ios', 'pymobiledevice3'] as const) {
    const rows = SUPPORT_ROWS.filter((r) => r.tool === tool && atLeast(ios, r.ios) && (!r.userspace || userspace === true));
    const min = rows.reduce<Version | undefined>((m, r) => (m === undefined || atLeast(r.from, m) ? r.from : m), undefined);
    if (min === undefined) continue;
    const found = tools.find((t) => t.tool === tool);
    const daemonUp = daemonsUp.includes(DAEMON_OF[tool]);
    if (found?.state === 'found') {
      if (atLeast(found.version, min)) return { kind: 'supported', by: tool };
    } else if (found?.state === 'unreadable' || daemonUp) {
      unknown ??=
        found?.state === 'unreadable'
          ? `${tool} says no version it can be judged by (${found.said})`
          : `${DAEMON_OF[tool]} answers, but ${tool} is not on the agent's PATH to ask its version`;
    }
    needs.push(INSTALL[tool].replace(/^(\S+)/, `$1 ${versionText(min)} or later`));
  }
  if (unknown !== undefined) return { kind: 'unknown', why: unknown };
  return { kind: 'not-supported', install: needs.join('; or ') };
}
