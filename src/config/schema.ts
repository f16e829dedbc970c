import { parseCron } from '../util/cron.js';
import { parseUsbmuxdAddress } from './usbmuxd-address.js';
import { isProblem, parseProxyUrl } from './proxy-url.js';

// The one schema of the agent's settings. Every key can come from
// config/default.json, from the file given with --config, or from an
// environment variable named DEVICE_AGENT_ + the key in UPPER_SNAKE case
// (nested keys joined with _), later sources winning.


export type FieldType = 'string' | 'integer' | 'boolean' | 'string[]';

export interface Field {
  readonly type: FieldType;
  optional?: boolean;
  secret?: boolean;
  min?: number;
  max?: number;
  oneOf?: readonly string[];
  /** Returns a problem description, or undefined when the value is fine. */
  check?: (value: never) => string | undefined;
  /**
   * Conventional variables (HTTPS_PROXY, ...) that give the value when neither
   * a file nor DEVICE_AGENT_* does; the first one set wins. An empty string in
   * a file still means "none", so a proxy set for the host can be turned off.
   */
  envDefault?: readonly string[];
  help: string;
}

const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;

function checkUrl(value: string): string | undefined {
  if (value === '') return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
    return undefined;
  } catch {
    return `is not a URL: ${JSON.stringify(value)}`;
  }
}

function checkCron(value: string): string | undefined {
  const parsed = parseCron(value);
  return typeof parsed === 'string' ? `${parsed}: ${JSON.stringify(value)}` : undefined;
}

function checkListen(value: string): string | undefined {
  if (value === 'off') return undefined;
  const match = /^(.+):(\d{1,5})$/.exec(value);
  if (!match || Number(match[2]) > 65535) return `must be HOST:PORT or off, got ${JSON.stringify(value)}`;
  return undefined;
}

function checkAdbSocket(value: string): string | undefined {
  return /^tcp:[^:]+:\d{1,5}$/.test(value) ? undefined : `must be tcp:HOST:PORT, got ${JSON.stringify(value)}`;
}

function checkNetworkDevices(value: string[]): string | undefined {
  const bad = value.filter((a) => !/^[^\s:]+:\d{1,5}$/.test(a) || Number(a.slice(a.lastIndexOf(':') + 1)) > 65535);
  return bad.length ? `must be HOST:PORT entries, got ${bad.map((b) => JSON.stringify(b)).join(', ')}` : undefined;
}

function checkUsbmuxdAddress(value: string): string | undefined {
  try {
    parseUsbmuxdAddress(value);
    return undefined;
  } catch (err) {
    return (err as Error).message.replace(/^USBMUXD_SOCKET_ADDRESS /, '');
  }
}

// A proxy URL may hold a password: the problem never repeats the value.
function checkProxyUrl(value: string): string | undefined {
  const parsed = parseProxyUrl(value);
  return isProblem(parsed) ? parsed.problem : undefined;
}

export const schema = {
  baseUrl: { type: 'string', check: checkUrl as Field['check'], help: 'the cloud v1 root, e.g. https://cloud.example.com/v1' },
  username: { type: 'string', help: 'username or email for HTTP Basic auth' },
  apiKey: { type: 'string', optional: true, secret: true, help: 'API key (prefer apiKeyFile or the api-key credential)' },
  apiKeyFile: { type: 'string', optional: true, help: 'file holding the API key' },
  nodeId: { type: 'string', optional: true, help: 'this host node id; generated once and kept in stateDir when unset' },
  stateDir: { type: 'string', optional: true, help: 'where the node id and the last reported device set are kept (default $STATE_DIRECTORY or ~/.local/state/device-agent)' },
  schedule: { type: 'string', check: checkCron as Field['check'], help: 'cron expression of the periodic report, in local time' },
  jitterSeconds: { type: 'integer', min: 0, max: 3600, help: 'random delay added to each scheduled report' },
  changeDebounceMs: { type: 'integer', min: 0, max: 1500, help: 'how long device changes are gathered before a report' },
  reconcileSeconds: { type: 'integer', min: 5, max: 3600, help: 'period of the full device-list reconciliation' },
  requestTimeoutSeconds: { type: 'integer', min: 1, max: 600, help: 'timeout of one HTTP request to the cloud' },
  shutdownTimeoutSeconds: { type: 'integer', min: 1, max: 9, help: 'how long an in-flight report may finish on shutdown' },
  probeTimeoutSeconds: { type: 'integer', min: 1, max: 600, help: 'timeout of one device shell session' },
  probeConcurrency: { type: 'integer', min: 1, max: 1000, help: 'devices probed at once' },
  reachabilityHost: { type: 'string', help: 'host the devices should reach (default: the cloud host)' },
  hiddenDevices: { type: 'string[]', help: 'udids reported with isHidden true' },
  addedToCloud: { type: 'boolean', help: 'value of addedToCloud for every device' },
  'support.appiumDisabled': { type: 'boolean', help: 'support flag' },
  'support.networkTrafficCapturingDisabled': { type: 'boolean', help: 'support flag' },
  'support.unlockPasscodeDisabled': { type: 'boolean', help: 'support flag' },
  'support.setTimeZoneDisabled': { type: 'boolean', help: 'support flag' },
  'support.networkPayloadCaptureDisabled': { type: 'boolean', help: 'support flag' },
  logLevel: { type: 'string', oneOf: logLevels, help: 'log level' },
  logFormat: { type: 'string', oneOf: ['auto', 'json', 'pretty'], help: 'json, pretty, or auto (pretty on a TTY)' },
  statusListen: { type: 'string', check: checkListen as Field['check'], help: 'HOST:PORT of /healthz and /metrics, or off' },
  adbServerSocket: { type: 'string', optional: true, check: checkAdbSocket as Field['check'], help: 'tcp:HOST:PORT of the adb server (ADB_SERVER_SOCKET wins)' },
  slowFactsRefreshSeconds: { type: 'integer', min: 10, max: 86400, help: 'how often slowly changing device facts (browsers, root, device name, proxy, SIM) are read again' },
  ios: { type: 'boolean', help: 'report iPhones through usbmuxd when its socket exists (false turns iOS off)' },
  usbmuxdSocketAddress: {
    type: 'string',
    optional: true,
    check: checkUsbmuxdAddress as Field['check'],
    help: 'UNIX:/path or HOST:PORT of usbmuxd (USBMUXD_SOCKET_ADDRESS wins; default UNIX:/var/run/usbmuxd)',
  },
  iosTimeoutSeconds: { type: 'integer', min: 1, max: 120, help: 'deadline of each usbmuxd or lockdown step with an iPhone' },
  networkDevices: {
    type: 'string[]',
    check: checkNetworkDevices as Field['check'],
    help: 'HOST:PORT of devices reached over TCP that the agent connects (adb connect) at start and keeps connected',
  },
  httpsProxy: {
    type: 'string',
    optional: true,
    secret: true,
    envDefault: ['https_proxy', 'HTTPS_PROXY'],
    check: checkProxyUrl as Field['check'],
    help: 'HTTP proxy for the https cloud, http://[USER:PASSWORD@]HOST:PORT (port 1080 when none, as curl); default https_proxy, else HTTPS_PROXY; "" in a file: none',
  },
  httpProxy: {
    type: 'string',
    optional: true,
    secret: true,
    envDefault: ['http_proxy', 'HTTP_PROXY'],
    check: checkProxyUrl as Field['check'],
    help: 'HTTP proxy for a cloud on plain http://; default http_proxy, else HTTP_PROXY',
  },
  noProxy: {
    type: 'string',
    optional: true,
    envDefault: ['no_proxy', 'NO_PROXY'],
    help: 'hosts reached without the proxy, as curl reads NO_PROXY: domain suffixes, IP addresses and CIDR blocks, host:port, or * for all; default no_proxy, else NO_PROXY',
  },
  caFile: { type: 'string', optional: true, help: 'PEM file of CAs to trust besides the others (a company root, a TLS-inspecting proxy\'s CA)' },
  systemCa: { type: 'boolean', help: "trust the host's CA store too (/etc/ssl/certs/ca-certificates.crt and its kin, where update-ca-certificates puts local CAs)" },
  'recovery.reconnectOffline': { type: 'boolean', help: 'run `adb reconnect offline` when a device is offline' },
  'recovery.offlineCooldownSeconds': { type: 'integer', min: 10, max: 86400, help: 'at most one `adb reconnect offline` in this many seconds' },
  'recovery.kickAfterShellFailures': { type: 'integer', min: 0, max: 1000, help: 'kick (adb -s SERIAL reconnect) a ready device after this many inventories in a row failed or past their deadline (0: never)' },
  'recovery.kickCooldownSeconds': { type: 'integer', min: 10, max: 86400, help: 'at least this long between two kicks of one device' },
  'recovery.maxKicksPerHour': { type: 'integer', min: 1, max: 60, help: 'kicks of one device in an hour at most' },
  'health.batteryHotCelsius': { type: 'integer', min: 20, max: 100, help: 'a battery at or above this temperature (°C) is hot' },
  'health.batteryHotHysteresisCelsius': { type: 'integer', min: 0, max: 30, help: 'a hot battery counts as cooled this many °C below the limit' },
  'health.batteryHotUnavailable': { type: 'boolean', help: 'a hot battery makes the device UNAVAILABLE (no work) until it has cooled' },
  'health.batteryLowPercent': { type: 'integer', min: 0, max: 100, help: 'a battery at or below this level while not charging is low' },
  'health.batteryLowUnavailable': { type: 'boolean', help: 'a low battery makes the device UNAVAILABLE' },
  'health.storageMinFreeMiB': { type: 'integer', min: 0, max: 1048576, help: 'less free storage than this (MiB) is nearly full' },
  'health.storageMinFreePercent': { type: 'integer', min: 0, max: 100, help: 'less free storage than this share (%) is nearly full' },
  'health.storageFullUnavailable': { type: 'boolean', help: 'nearly full storage makes the device UNAVAILABLE' },
  'health.shellFailures': { type: 'integer', min: 0, max: 1000, help: 'inventories failed or past their deadline in a row before the shell counts as unresponsive (0: off)' },
  'health.shellUnresponsiveUnavailable': { type: 'boolean', help: 'an unresponsive shell makes the device UNAVAILABLE' },
  'health.batteryHealthUnavailable': { type: 'boolean', help: 'a battery whose health the phone reports as anything but good (overheat, dead, over voltage, cold, failure) makes the device UNAVAILABLE' },
  'health.batteryHeldFullSeconds': { type: 'integer', min: 0, max: 31536000, help: 'a battery full on external power without a break for longer than this (s) is held full (0: off)' },
  'health.chargingVoltageMaxMillivolts': { type: 'integer', min: 0, max: 48000, help: 'a charger offering more than this (mV) while the phone is plugged is flagged (0: off)' },
  'health.batteryMaxCycles': { type: 'integer', min: 0, max: 100000, help: 'a battery past this many full charge cycles is worn, where the phone reports them (0: off)' },
  'health.batteryMinHealthPercent': { type: 'integer', min: 0, max: 100, help: 'a battery whose state of health is below this (%) is worn, where the phone reports it (0: off)' },
} as const satisfies Record<string, Field>;

// The settings' type, derived from the schema: one source for the keys, their
// types and which are optional. Dotted keys ("health.batteryHotCelsius") nest.
type ValueOf<F> = F extends { type: 'string' } ? string : F extends { type: 'integer' } ? number : F extends { type: 'boolean' } ? boolean : string[];
type Flat<S> = {
  [K in keyof S as K extends `${string}.${string}` ? never : S[K] extends { optional: true } ? never : K]: ValueOf<S[K]>;
} & {
  [K in keyof S as K extends `${string}.${string}` ? never : S[K] extends { optional: true } ? K : never]?: ValueOf<S[K]>;
};
type Groups<S> = {
  [G in keyof S as G extends `${infer H}.${string}` ? H : never]: Nested<{ [K in keyof S as K extends `${string}.${infer R}` ? (K extends `${G extends `${infer H}.${string}` ? H : never}.${string}` ? R : never) : never]: S[K] }>;
};
type Nested<S> = Flat<S> & Groups<S>;
type Expand<T> = T extends object ? (T extends unknown[] ? T : { [K in keyof T]: Expand<T[K]> }) : T;

export type Settings = Expand<Nested<typeof schema>>;

/** DEVICE_AGENT_ + UPPER_SNAKE of a dotted key: support.appiumDisabled -> DEVICE_AGENT_SUPPORT_APPIUM_DISABLED. */
export function envName(key: string): string {
  return (
    'DEVICE_AGENT_' +
    key
      .split('.')
      .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
      .join('_')
  );
}
