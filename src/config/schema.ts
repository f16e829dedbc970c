import { parseCron } from '../util/cron.js';
import { parseUsbmuxdAddress } from './usbmuxd-address.js';
import { isProblem, parseProxyUrl } from './proxy-url.js';
import { nodeIdProblem } from './node-id-text.js';
import { checkHubPorts } from './hub-ports.js';
import { checkHiddenDevices } from './hidden-devices.js';
import { checkChargeWays, checkPortCommand } from './charge-ways.js';
import { checkReadinessChecks } from './readiness.js';

// The one schema of the agent's settings. Every key can come from
// config/default.json, from the file given with --config, or from an
// environment variable (envName below), later sources winning. Validation,
// the variable names, the command help and docs/reference/configuration.md
// all read this table.

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
  /** The form `check` accepts, said for people (help, the reference). */
  format?: string;
  /** What an unset or empty value means, where config/default.json gives none. */
  unset?: string;
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
    help: '`support.appiumDisabled` of every device; also set per phone where readiness finds Appium cannot run (`usbDebugging`, `xiaomiInput`, `xiaomiInstall`, `paired`, `developerMode` failing: docs/operations/lab.md), never cleared by it',
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
  'usb.kernelLog': {
    type: 'string',
    format: 'path, or `""` for off',
    help:
      "the kernel's log the USB layer follows for its messages about ports, hubs and controllers ([which](usb-kernel-messages.md)): `/dev/kmsg`, or a recorded file of `/dev/kmsg` records to replay an incident (a dmesg or journal capture reads too); " +
      '`""` turns the reading off. A path that is no kernel log (a directory, `/dev/zero`, a binary file) is said once and not read. Where it cannot be read (`kernel.dmesg_restrict=1` without `CAP_SYSLOG`, a container without `/dev/kmsg`) the agent says so once and works as without it; ' +
      "`doctor` says whether the agent can read it, and names the worst ports of the daemon's record, which `list` shows in its USB column",
  },
  'usb.sysfsRoot': {
    type: 'string',
    format: 'path, or `""` for off',
    help:
      "where the kernel lists the USB devices (`/sys/bus/usb/devices`, or a copied tree to replay an incident): the controller of each bus, for the USB layer's verdicts, the port of each iPhone (usbmuxd's location, by `busnum` and `devnum`), and the serial on each port: " +
      'a phone adb (or usbmuxd) stops listing while the port its source last placed it on shows the serial it had there is reported UNAVAILABLE with why (USB debugging off, charge-only mode; in its bootloader, or held by another adb server, when the interfaces it offers on the port say so; usbmuxd did not take an iPhone), not UNPLUGGED; ' +
      '`list`\'s USB column and `doctor`\'s controller load and autosuspend lines read it too. `""` turns them off',
  },
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
  'recovery.reconnectOffline': {
    type: 'boolean',
    help: 'reconnect an offline USB device (`adb reconnect offline`, or `adb -s SERIAL reconnect` when others must not be touched) and an offline one of `networkDevices`; off, an offline phone is never power-cycled either',
  },
  'recovery.offlineCooldownSeconds': { type: 'integer', min: 10, max: 86400, help: 'at most one `adb reconnect offline` in this many seconds' },
  'recovery.kickAfterShellFailures': {
    type: 'integer',
    min: 0,
    max: 1000,
    help: 'kick (`adb -s SERIAL reconnect`) a ready device after this many inventories in a row failed or missed their deadline; 0 never kicks',
  },
  'recovery.kickCooldownSeconds': { type: 'integer', min: 10, max: 86400, help: 'at least this long between two kicks of one device' },
  'recovery.maxKicksPerHour': { type: 'integer', min: 1, max: 60, help: 'kicks of one device in an hour at most' },
  'recovery.powerCycle': {
    type: 'boolean',
    help: 'power-cycle the hub port behind a phone (`hubPorts`) that a kick did not bring back, or that stayed offline through 2 offline reconnects and two `offlineCooldownSeconds`, after the kick cooldown and at most `maxKicksPerHour` times an hour; needs a hub with per-port power switching',
  },
  'recovery.powerCycleCommand': {
    type: 'string',
    format: 'command, split on spaces',
    help: 'run as `COMMAND -l HUB -p PORT -a cycle` (and `-a off`, `-a on` for charge pauses), without a shell: `uhubctl`, or a command taking its arguments (a wrapper with `sudo`, another tool)',
  },
  'recovery.bookingCacheSeconds': {
    type: 'integer',
    min: 1,
    max: 600,
    help: 'before a disruptive action (a kick, `adb reconnect`) the cloud is asked whether the device is booked (`GET /devices/{udid}/status`); its answer stands this long (s)',
  },
  'recovery.bookingRequestsPerMinute': {
    type: 'integer',
    min: 1,
    max: 60,
    help: 'booking status requests of the host in any minute at most; a device waits, left alone, when they are spent',
  },
  'recovery.bookingTimeoutSeconds': {
    type: 'integer',
    min: 1,
    max: 60,
    help: 'a booking status request without an answer by then counts as no answer: the device is left alone',
  },
  'health.batteryHotCelsius': { type: 'integer', min: 20, max: 100, help: 'a battery at or above this temperature (°C) is hot' },
  'health.batteryHotHysteresisCelsius': {
    type: 'integer',
    min: 0,
    max: 30,
    help: 'a hot battery counts as cooled only this many °C below the limit (42 °C by default)',
  },
  'health.hostHotPhones': {
    type: 'integer',
    min: 2,
    max: 1000,
    help: 'this many phones of the host turning hot within `health.hostHotWindowMinutes` of each other are one host-level episode (the room or the host, not the phones): one warning naming them, a note on each, `device_agent_host_hot_episode` 1',
  },
  'health.hostHotWindowMinutes': {
    type: 'integer',
    min: 1,
    max: 1440,
    help: 'how close together (minutes) the phones of `health.hostHotPhones` must turn hot to be one host-level episode',
  },
  'health.batteryHotUnavailable': { type: 'boolean', help: 'a hot battery makes the device `UNAVAILABLE`, so the cloud sends it no work until it has cooled' },
  'health.batteryLowPercent': { type: 'integer', min: 0, max: 100, help: 'a battery at or below this level (%) while not charging is low' },
  'health.batteryLowUnavailable': { type: 'boolean', help: 'a low battery makes the device `UNAVAILABLE`' },
  'health.storageMinFreeMiB': { type: 'integer', min: 0, max: 1048576, help: 'less free storage than this (MiB) is nearly full' },
  'health.storageMinFreePercent': { type: 'integer', min: 0, max: 100, help: 'less free storage than this share of the total (%) is nearly full' },
  'health.storageFullUnavailable': { type: 'boolean', help: 'nearly full storage makes the device `UNAVAILABLE`' },
  'health.shellFailures': {
    type: 'integer',
    min: 0,
    max: 1000,
    help: 'inventories failed or past their deadline in a row before the shell counts as unresponsive; 0 turns the rule off',
  },
  'health.shellUnresponsiveUnavailable': {
    type: 'boolean',
    help: "an unresponsive shell makes the device `UNAVAILABLE` (the record already carries the collector's advice either way)",
  },
  'health.batteryHealthUnavailable': {
    type: 'boolean',
    help: 'a battery whose health the phone reports as anything but good (`OVERHEAT`, `DEAD`, `OVER_VOLTAGE`, `COLD`, `UNSPECIFIED_FAILURE`) makes the device `UNAVAILABLE`',
  },
  'health.batteryHeldFullSeconds': {
    type: 'integer',
    min: 0,
    max: 31536000,
    help: 'a battery full (100 % or status `FULL`) on external power without a break for longer than this (s) is held full; 0 turns the rule off',
  },
  'health.chargingVoltageMaxMillivolts': {
    type: 'integer',
    min: 0,
    max: 48000,
    help: 'a plugged charger offering more than this (mV; `Max charging voltage` of `dumpsys battery`: 5 V on a plain USB port, 9 V and more when fast charging) is flagged; 0 turns the rule off',
  },
  'health.batteryMaxCycles': {
    type: 'integer',
    min: 0,
    max: 100000,
    help: 'a battery past this many full charge cycles is worn, where the phone reports them (Samsung); 0 turns the figure off',
  },
  'health.batteryMinHealthPercent': {
    type: 'integer',
    min: 0,
    max: 100,
    help: 'a battery whose state of health is below this (%) is worn, where the phone reports it (Samsung); 0 turns the figure off',
  },
  'charge.ways': {
    type: 'string[]',
    check: checkChargeWays,
    format: 'ID=WAY or model:PATTERN=WAY list',
    help:
      'charge control, off unless listed: `uhubctl` pauses charging by switching off the hub port behind the phone (`hubPorts`, with `recovery.powerCycleCommand`) at `highPercent`, ' +
      '`command` does the same with `charge.command`, ' +
      'and on again at `lowPercent` or after `maxPauseSeconds`, only while the cloud says the phone is not booked; ' +
      "`samsung` turns on a Samsung's own battery protection (`settings put global protect_battery 1`, a cap at 85 %) where it is off, only while the cloud says the phone is not booked, " +
      "reads it back and says on the device when it did not take (removing the entry leaves the setting on the phone); ID is a udid or adb serial (one that is one device's serial and another's udid applies to neither, not even their model's entry), PATTERN a model (`*` for any text, " +
      "e.g. `model:SM-S9*=uhubctl`), a phone's own entry first, then the first model that matches; `off` names an exception. See [charge control](../operations/battery.md#charge-control)",
  },
  'charge.command': {
    type: 'string',
    check: checkPortCommand,
    format: 'command with {hub} {port} {action}, split on spaces',
    unset: 'none: no phone can have the `command` way',
    help:
      "the way `command`: the operator's own tool for a hub that uhubctl does not drive, each word with `{hub}`, `{port}` and `{action}` (`off`, `on`) put in, run without a shell, e.g. " +
      '`/usr/local/bin/hub-power {hub} {port} {action}`; needed by a `command` entry of `charge.ways`',
  },
  'charge.highPercent': { type: 'integer', min: 50, max: 100, help: 'a charge pause starts when the battery is at or above this level (%)' },
  'charge.lowPercent': {
    type: 'integer',
    min: 5,
    max: 95,
    help: 'a pause ends when a reading shows the battery at or below this level (%), below `highPercent`; a phone whose port is off rarely gives one, so `maxPauseSeconds` usually ends it',
  },
  'charge.maxPauseSeconds': {
    type: 'integer',
    min: 5,
    max: 86400,
    help: 'the port is switched on again this long after a pause started, whatever the battery or the cloud says',
  },
  'readiness.checks': {
    type: 'string[]',
    check: checkReadinessChecks,
    format: 'NAME or NAME=VALUE list',
    help:
      "the lab's readiness baseline: the checks that matter, each `NAME` (the value that suits automated testing) or `NAME=VALUE` (the lab's own); " +
      'a phone that fails one is named not ready in its message, with what to do; a check not read (a list that failed, a row the phone does not print, a value its framework would not take) is unread: never failed, never ready. ' +
      'The names: `stayAwake` (on: the USB bit of the power sources it stays awake on; 1, AC only, fails), `screenLock` (false: no PIN, pattern or password), ' +
      '`windowAnimation`, `transitionAnimation`, `animatorDuration` (0), `verifyAdbInstalls` (0), `packageVerifier` (0), `autoRotate` (0), `autoTime`, `autoTimeZone` (1), ' +
      '`airplaneMode` (0), `wifi` (on), `batterySaver` (0), `autoSystemUpdates` (1: automatic updates off), `developerOptions`, `usbDebugging` (1), ' +
      '`xiaomiInput`, `xiaomiInstall` (1, Xiaomi phones only); for the phones lockdown answers for: `paired` (true: the host is trusted), `developerMode` (true: ' +
      "Developer Mode on, iOS 16 and later: not an older phone's check), `passcode` (true: a passcode set; lockdown tells it only while the phone is locked, so it is unread otherwise: never failed, never ready), " +
      "`osVersion` (`MIN..MAX`, either end optional, a bound covering its minor versions: the versions the host's tools support, `9..` by default, e.g. `osVersion=12..16` " +
      'where the tools have no iOS 17 tunnel); read with the slow facts (`slowFactsRefreshSeconds`); an empty list turns readiness off',
  },
  'readiness.fix': {
    type: 'boolean',
    help:
      '`true`: put back the settings of `readiness.checks` the agent may change (`stayAwake`, `windowAnimation`, `transitionAnimation`, `animatorDuration`, `verifyAdbInstalls`, `autoRotate`) ' +
      'on a phone that differs, only while the cloud says it is not booked (booked or unknown: nothing is written), at most once per 10 minutes and 3 times an hour per phone, each write read back; ' +
      'a value that does not stick is said once and not written again on that phone until it changes. Never screen lock, developer options, USB debugging or accounts (docs/operations/lab.md)',
  },
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
  [G in keyof S as G extends `${infer H}.${string}` ? H : never]: Nested<{
    [K in keyof S as K extends `${string}.${infer R}` ? (K extends `${G extends `${infer H}.${string}` ? H : never}.${string}` ? R : never) : never]: S[K];
  }>;
};
type Nested<S> = Flat<S> & Groups<S>;
type Expand<T> = T extends object ? (T extends unknown[] ? T : { [K in keyof T]: Expand<T[K]> }) : T;

export type Settings = Expand<Nested<typeof schema>>;

/**
 * The variable of a setting: DEVICE_AGENT_ + the key in UPPER_SNAKE case,
 * nested keys joined with _ (support.appiumDisabled ->
 * DEVICE_AGENT_SUPPORT_APPIUM_DISABLED). A word starts at a capital followed
 * by a small letter, so a unit such as MiB stays one word
 * (health.storageMinFreeMiB -> DEVICE_AGENT_HEALTH_STORAGE_MIN_FREE_MIB).
 */
export function envName(key: string): string {
  return (
    'DEVICE_AGENT_' +
    key
      .split('.')
      .map((part) => part.replace(/([a-z0-9])(?=[A-Z][a-z])/g, '$1_').toUpperCase())
      .join('_')
  );
}

/**
 * The variable the agent read before envName kept units whole (every
 * capital started a word: ..._MI_B). Still accepted, with a warning, while
 * operators rename it; undefined where the name did not change.
 */
export function formerEnvName(key: string): string | undefined {
  const former =
    'DEVICE_AGENT_' +
    key
      .split('.')
      .map((part) => part.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase())
      .join('_');
  return former === envName(key) ? undefined : former;
}
