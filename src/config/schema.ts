import { parseCron } from '../util/cron.js';
import { parseUsbmuxdAddress } from './usbmuxd-address.js';
import { isProblem, parseProxyUrl } from './proxy-url.js';
import { nodeIdProblem } from './node-id-text.js';
import { checkHubNames, checkHubPorts } from './hub-ports.js';
import { checkHiddenDevices } from './hidden-devices.js';
import type { Field } from './field.js';
import { availabilitySettings } from '../features/availability/settings.js';
import { chargeSettings } from '../features/charge/settings.js';
import { healthSettings } from '../features/health/settings.js';
import { hostHeatSettings } from '../features/host-heat/settings.js';
import { readinessFixSettings } from '../features/readiness-fix/settings.js';
import { quarantineSettings } from '../features/quarantine/settings.js';
import { readinessSettings } from '../features/readiness/settings.js';
import { recorderSettings } from '../features/recorder/settings.js';
import { recoverySettings } from '../features/recovery/settings.js';
import { usbSettings } from '../features/usb/settings.js';
import { iosDeveloperSettings } from '../features/ios-developer/settings.js';
import { adbAuthorizationSettings } from '../features/adb-authorization/settings.js';
import { wearSettings } from '../features/wear/settings.js';

// The one schema of the agent's settings: the core ones here and each feature's fragment, composed in one table. A key
// comes from its default (a feature's in its fragment, the core's in config/default.json), the --config file, or its
// variable (envName), later winning. Validation, the variables,
// the help and docs/reference/configuration.md read it.

export type { Field, FieldType } from './field.js';

const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

function checkUrl(value: string) {
  if (value === '') return undefined;
  const url = URL.parse(value);
  if (!url) return `is not a URL: ${JSON.stringify(value)}`;
  return url.protocol === 'https:' || url.protocol === 'http:' ? undefined : 'must be an http(s) URL';
}

function checkCron(value: string) {
  const parsed = parseCron(value);
  return typeof parsed === 'string' ? `${parsed}: ${JSON.stringify(value)}` : undefined;
}

function checkListen(value: string) {
  const match = /^(.+):(\d{1,5})$/.exec(value);
  return value === 'off' || (match && Number(match[2]) <= 65535) ? undefined : `must be HOST:PORT or off, got ${JSON.stringify(value)}`;
}

function checkAdbSocket(value: string) {
  return /^tcp:[^:]+:\d{1,5}$/.test(value) ? undefined : `must be tcp:HOST:PORT, got ${JSON.stringify(value)}`;
}

function checkNetworkDevices(value: string[]) {
  const bad = value.filter((a) => !/^[^\s:]+:\d{1,5}$/.test(a) || Number(a.slice(a.lastIndexOf(':') + 1)) > 65535);
  return bad.length ? `must be HOST:PORT entries, got ${bad.map((b) => JSON.stringify(b)).join(', ')}` : undefined;
}

function checkUsbmuxdAddress(value: string) {
  try {
    parseUsbmuxdAddress(value);
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^USBMUXD_SOCKET_ADDRESS /, '');
  }
}

// A proxy URL may hold a password: the problem never repeats the value.
function checkProxyUrl(value: string) {
  const parsed = parseProxyUrl(value);
  return isProblem(parsed) ? parsed.problem : undefined;
}

export const schema = {
  baseUrl: {
    type: 'string',
    check: checkUrl,
    format: 'http(s) URL',
    unset: 'none: required to send (`once`, `run`)',
    help: "the cloud's v1 root, e.g. `https://cloud.example.com/v1`; the API's paths are relative to it",
  },
  username: { type: 'string', unset: 'none: required to send', help: 'username or email of the account, for HTTP Basic auth' },
  apiKey: {
    type: 'string',
    optional: true,
    secret: true,
    help: 'the API key; prefer `apiKeyFile` or a systemd credential named `api-key` under `$CREDENTIALS_DIRECTORY` (tried in that order after this one)',
  },
  apiKeyFile: { type: 'string', optional: true, format: 'path', help: 'file holding the API key (readable only by the agent)' },
  nodeId: {
    type: 'string',
    optional: true,
    check: (v: string) => (v === '' ? undefined : nodeIdProblem(v)),
    unset: 'a UUID generated once and kept in `stateDir/node-id`',
    help: "this host node's id; when unset, the generated one survives restarts and upgrades",
  },
  stateDir: {
    type: 'string',
    optional: true,
    format: 'path',
    unset: '`$STATE_DIRECTORY` (systemd), else `~/.local/state/device-agent`',
    help: 'where the node id and the last reported device set (`reported-devices.json`, so that devices gone while the agent was down are reported UNPLUGGED) are kept',
  },
  schedule: {
    type: 'string',
    check: checkCron,
    format: 'cron, 5 fields or 6 with seconds first',
    help:
      "cron expression of the periodic report, in the host's local time: numbers, names (`mon-fri`, `jan`), `*`, ranges (wrapping ones too, `22-2`), " +
      'steps (`*/5`, `8-18/2`) and lists, with day of month and weekday both to match, as node-cron reads them; `L`, `W` and `#` are refused at start',
  },
  jitterSeconds: {
    type: 'integer',
    min: 0,
    max: 3600,
    help: "random delay (0 to this) added to each scheduled report, on top of the host's own place in the period read from its node id (a fleet's reports cover the whole period); the start report waits a random 0 to this too, at most a period",
  },
  changeDebounceMs: {
    type: 'integer',
    min: 0,
    max: 1500,
    help: 'device events are gathered this long after the last one (at most 1.5 s after the first) before a report',
  },
  reconcileSeconds: { type: 'integer', min: 5, max: 3600, help: 'period of the full device-list reconciliation with the adb server' },
  requestTimeoutSeconds: {
    type: 'integer',
    min: 1,
    max: 600,
    help: 'timeout of one HTTP request to the cloud (shortened to end by the next scheduled report, 5 s at least)',
  },
  shutdownTimeoutSeconds: {
    type: 'integer',
    min: 1,
    max: 9,
    help: 'how long an in-flight report may finish after SIGTERM (the agent exits within 10 s, as docker allows)',
  },
  probeTimeoutSeconds: { type: 'integer', min: 1, max: 600, help: "timeout of one device's inventory shell session" },
  probeConcurrency: { type: 'integer', min: 1, max: 1000, help: 'devices probed at once' },
  reachabilityHost: { type: 'string', unset: "the cloud's host", help: 'host the devices ping for `networkReachability`' },
  hiddenDevices: {
    type: 'string[]',
    check: checkHiddenDevices,
    format: 'udid list',
    help: 'udids reported with `isHidden: true`; an entry with a blank, a semicolon or quotes is refused, and one no device has is said once the devices are listed',
  },
  addedToCloud: { type: 'boolean', help: '`addedToCloud` of every device' },
  'support.appiumDisabled': {
    type: 'boolean',
    help: '`support.appiumDisabled` of every device; also set per phone where readiness finds Appium cannot run (`usbDebugging`, `xiaomiInput`, `xiaomiInstall`, `paired`, `developerMode`, `developerImage` failing: docs/operations/lab.md), never cleared by it',
  },
  'support.networkTrafficCapturingDisabled': { type: 'boolean', help: '`support.networkTrafficCapturingDisabled` of every device' },
  'support.unlockPasscodeDisabled': { type: 'boolean', help: '`support.unlockPasscodeDisabled` of every device' },
  'support.setTimeZoneDisabled': { type: 'boolean', help: '`support.setTimeZoneDisabled` of every device' },
  'support.networkPayloadCaptureDisabled': { type: 'boolean', help: '`support.networkPayloadCaptureDisabled` of every device' },
  logLevel: { type: 'string', oneOf: logLevels, help: 'the lowest level logged; `--log-level` overrides it' },
  logFormat: { type: 'string', oneOf: ['auto', 'json', 'pretty'], help: '`auto` is JSON, or readable lines on a terminal; `--log-format` overrides it' },
  statusListen: { type: 'string', check: checkListen, format: 'HOST:PORT or off', help: '`HOST:PORT` of `/healthz` and `/metrics`, or `off`' },
  statusWebConfigFile: {
    type: 'string',
    optional: true,
    format: 'path',
    unset: 'none: plain HTTP, no authentication (keep `statusListen` on loopback then)',
    help: "node_exporter's web configuration file for the status endpoint: `tls_server_config` (`cert_file`, `key_file`, `client_ca_file`, `client_auth_type`, `min_version`) and `basic_auth_users` with bcrypt hashes (at most 2 bcrypt checks a second, a burst of 4: beyond that a request is answered 429 with Retry-After, unchecked, so wrong passwords cannot starve the agent; a pair that passed costs none again); see docs/reference/metrics.md",
  },
  statusHosts: {
    type: 'string[]',
    format: 'host name list, or *',
    help: "`Host` names `/healthz` and `/metrics` answer besides IP addresses, loopback names, `statusListen`'s host and this host's name (others get 421, against DNS rebinding from a web page open on the host): the name a scraper or reverse proxy uses, or `*` for any",
  },
  adbServerSocket: {
    type: 'string',
    optional: true,
    check: checkAdbSocket,
    format: 'tcp:HOST:PORT',
    unset: "adb's port variable on localhost (see The adb server), else `tcp:localhost:5037`",
    help: "the adb server; `ADB_SERVER_SOCKET` wins over it, and it wins over adb's port variable",
  },
  slowFactsRefreshSeconds: {
    type: 'integer',
    min: 10,
    max: 86400,
    help: 'how often slowly changing device facts (browsers, root, device name, proxy, SIM) are read again; volatile facts are read every report',
  },
  ios: {
    type: 'boolean',
    optional: true,
    unset: 'iPhones are reported when a usbmuxd socket exists, and nothing is said when none does',
    help: '`true`: report iPhones through usbmuxd and say so when usbmuxd is missing; `false`: iOS off (usbmuxd is never contacted)',
  },
  usbmuxdSocketAddress: {
    type: 'string',
    optional: true,
    check: checkUsbmuxdAddress,
    format: 'UNIX:/path or HOST:PORT',
    unset: '`UNIX:/var/run/usbmuxd`',
    help: 'where usbmuxd listens; `USBMUXD_SOCKET_ADDRESS` wins over it, as for libimobiledevice',
  },
  iosTimeoutSeconds: { type: 'integer', min: 1, max: 120, help: 'deadline of each usbmuxd or lockdown step with an iPhone (connect included)' },
  networkDevices: {
    type: 'string[]',
    check: checkNetworkDevices,
    format: 'HOST:PORT list',
    help: 'devices reached over TCP: the daemon connects them (`adb connect`) at start and keeps them connected, see [self-healing](../operations/lab.md#self-healing)',
  },
  hubPorts: {
    type: 'string[]',
    check: checkHubPorts,
    format: 'ID=HUB:PORT list',
    help: "the hub port behind each phone: its udid or adb serial, the hub's location as `uhubctl` names it (`1-1.4`) and the port on it, e.g. `R58M12AB=1-1.4:3`; shown in `list` and on `device_agent_device_info`. A port is switched for a USB phone only while the usb path adb reports lies behind it (`R58M12AB=1-1.4:3` wants `usb:1-1.4.3` or below), and for no phone whose udid or serial another device claims; a key that is one device's adb serial and the udid another gives (a phone may give `127.0.0.1:5555` as its udid) names neither phone: nothing is switched through it, said in one warning, and such a phone is best mapped by its udid ([trust model](../design/trust.md))",
  },
  hubNames: {
    type: 'string[]',
    check: checkHubNames,
    format: 'HUB=NAME list',
    help: "what the lab calls each hub, by its location as `uhubctl` and the kernel name it, e.g. `1-1.4=rack B shelf 2, left hub`: `list` (its USB column) and the status page show it beside the hub's location. In the variable the entries are comma-separated, so a name holding a comma goes in the settings file",
  },
  ...usbSettings,
  httpsProxy: {
    type: 'string',
    optional: true,
    secret: true,
    envDefault: ['https_proxy', 'HTTPS_PROXY'],
    check: checkProxyUrl,
    format: 'http://[USER:PASSWORD@]HOST[:PORT]',
    unset: '`https_proxy`, else `HTTPS_PROXY`, else none (direct)',
    help:
      'HTTP proxy of the requests to an https cloud (port 1080 when none, as curl); a CONNECT tunnel carries the TLS, so the agent checks the ' +
      'cloud\'s certificate itself. `""` in a config file: no proxy whatever the environment says. See [Proxies and private CAs](../install/proxy.md)',
  },
  httpProxy: {
    type: 'string',
    optional: true,
    secret: true,
    envDefault: ['http_proxy', 'HTTP_PROXY'],
    check: checkProxyUrl,
    format: 'http://[USER:PASSWORD@]HOST[:PORT]',
    unset: '`http_proxy`, else `HTTP_PROXY`, else none (direct)',
    help: 'the same for a cloud on plain `http://`',
  },
  noProxy: {
    type: 'string',
    optional: true,
    envDefault: ['no_proxy', 'NO_PROXY'],
    unset: '`no_proxy`, else `NO_PROXY`, else none',
    help: 'hosts reached without the proxy, as curl reads it: `example.com` covers its subdomains, IP addresses and CIDR blocks (`10.0.0.0/8`, `fe80::/10`), `host:port`, `*` for every host',
  },
  caFile: {
    type: 'string',
    optional: true,
    format: 'path',
    unset: "none: Node's own roots (and the host's, with `systemCa`)",
    help: "PEM file of CAs trusted besides the others: a private cloud's CA, or the CA a TLS-inspecting proxy signs with. `NODE_EXTRA_CA_CERTS` works as well",
  },
  allowPlainHttp: {
    type: 'boolean',
    help: 'allow a `baseUrl` of plain `http://` to a host other than this one: the API key then crosses the network unencrypted, so only where that network is trusted (the agent says so at start)',
  },
  systemCa: {
    type: 'boolean',
    help: "also trust the host's CA bundle (`/etc/ssl/certs/ca-certificates.crt` and its kin, or `SSL_CERT_FILE`), where `update-ca-certificates` puts a company CA",
  },
  ...recoverySettings,
  ...healthSettings,
  ...hostHeatSettings,
  ...wearSettings,
  ...chargeSettings,
  ...readinessSettings,
  ...readinessFixSettings,
  ...iosDeveloperSettings,
  ...adbAuthorizationSettings,
  ...quarantineSettings,
  ...availabilitySettings,
  ...recorderSettings,
} as const satisfies Record<string, Field>;

/** Every setting's key and field, in the schema's order. */
export const settingFields = Object.entries(schema) as [keyof typeof schema, Field][];

// The settings' type, derived from the schema: one source for the keys, their types and which are optional. Dotted keys
// ("health.batteryHotCelsius") nest.
type ValueOf<F> = F extends { type: 'string' } ? string : F extends { type: 'integer' } ? number : F extends { type: 'boolean' } ? boolean : string[];
type Flat<S> = {
  [K in keyof S as K extends `${string}.${string}` ? never : S[K] extends { optional: true } ? never : K]: ValueOf<S[K]>;
} & {
  [K in keyof S as K extends `${string}.${string}` ? never : S[K] extends { optional: true } ? K : never]?: ValueOf<S[K]>;
};
type Groups<S> = {
  [G in keyof S as G extends `${infer H}.${string}` ? H : never]: Nested<{
    [K in keyof S as K extends `${string}.${infer R}` ? (K extends `${G extends `${infer H}.${string}` ? H : never}.${string}` ? R : never) : never]: S[K];
  }>;
};
type Nested<S> = Flat<S> & Groups<S>;
type Expand<T> = T extends object ? (T extends unknown[] ? T : { [K in keyof T]: Expand<T[K]> }) : T;

export type Settings = Expand<Nested<typeof schema>>;

/**
 * A setting's variable: DEVICE_AGENT_ + the key in UPPER_SNAKE case, nested keys joined with _. A word starts at a
 * capital followed by a small letter, so a unit stays one word (storageMinFreeMiB -> ..._STORAGE_MIN_FREE_MIB).
 */
export function envName(key: string) {
  return variable(key, /([a-z0-9])(?=[A-Z][a-z])/g);
}

/** DEVICE_AGENT_ + the key's parts in upper case, `wordEnd` marking where an underscore goes, joined with _. */
function variable(key: string, wordEnd: RegExp) {
  return (
    'DEVICE_AGENT_' +
    key
      .split('.')
      .map((part) => part.replace(wordEnd, '$1_').toUpperCase())
      .join('_')
  );
}

/**
 * Settings that moved to another key, old key to new, as the fields declare
 * them (`formerKey`): the loader reads the old key of a settings file and
 * its variable, with a warning, and the reference lists them.
 */
export const MOVED_SETTINGS: Readonly<Record<string, keyof typeof schema>> = Object.fromEntries(
  settingFields.flatMap(([key, field]) => (field.formerKey === undefined ? [] : [[field.formerKey, key]])),
);

/** The variable read before envName kept units whole (..._MI_B): still accepted with a warning; undefined where unchanged. */
export function formerEnvName(key: string) {
  const former = variable(key, /([a-z0-9])(?=[A-Z])/g);
  return former === envName(key) ? undefined : former;
}
