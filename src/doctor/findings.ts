// What each observation means for the operator: pure functions from what the doctor saw (settings, adb answers, the
// cloud's answer) to checklist items. The I/O that gathers the observations is in checks.ts.

import { sentInClear } from '../config/plain-http.js';
import { CloudAuthError, CloudError, CloudProtocolError, CloudProxyError, CloudRejectedError, CloudUnavailableError } from '../cloud/errors.js';
import type { CredentialCheck } from '../cloud/client.js';
import type { ServiceDoctor, ToolVersion } from '../platforms/doctor.js';
import type { ConfigWarning } from '../config/environment.js';
import { SERVICE_STATE_ADVICE } from '../config/service-state.js';
import type { CheckItem, CheckResult } from './checklist.js';
import { whereOn } from './where.js';
import { errorText } from '../util/error-text.js';

/** Where the doctor sends its one request, and with which credentials (never the key itself). */
export interface CloudTarget {
  baseUrl: string;
  username: string;
  /** Where the API key came from: a variable name or a file path. */
  keySource: string;
}

export interface DeviceFacts {
  serial: string;
  /** adb's state string. */
  state: string;
  /** ro.product.model, for ready devices that answered the shell. */
  model?: string;
  /** Why its one shell told not all it was asked (not ready, failed, cut short): its model, or the parts the features read. */
  unread?: string;
  /** The udid the report gives it (read in the doctor's one shell; its adb serial where it was not read). */
  udid?: string;
  /** hiddenDevices names its udid (the report hides it), or only its adb serial where that differs (the report does not). */
  hidden?: 'udid' | 'serial';
  /** adb's usb path and transport id, from its long listing. */
  usb?: string;
  transportId?: string;
}

/** The state of the node id, as read from the settings and the state directory. */
export type NodeIdFacts =
  | { kind: 'configured'; id: string }
  | { kind: 'kept'; id: string; file: string }
  | { kind: 'new'; dir: string }
  | { kind: 'unwritable'; dir: string; reason: string }
  | { kind: 'unreadable'; file: string; reason: string };

/** The doctor's own typed failure for an adb server that accepted but never answered. */
export class NoAnswerError extends Error {
  override readonly name = 'NoAnswerError';
  constructor(
    what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} did not answer within ${formatDuration(timeoutMs)}`);
  }
}

/** Where this host's operator changes the settings the advice names. */
const onThisHost = whereOn();

const WARN_SKEW_MS = 30_000;
const FAIL_SKEW_MS = 5 * 60_000;

// ---- configuration ---------------------------------------------------------

/** Settings loaded; names the variables the agent read, never their values (unknown ones are warnings of their own). */
export function settingsItem(variables: readonly string[]): CheckItem {
  const from = variables.length ? `${onThisHost.variables}: ${variables.join(', ')}` : 'no DEVICE_AGENT_* variables set';
  return { id: 'config', status: 'ok', finding: `configuration valid (${from})` };
}

/** An unknown or old variable name: the settings load, but probably not as meant. */
export function variableWarning(warning: ConfigWarning, where = onThisHost): CheckItem {
  return {
    id: 'config.variables',
    status: 'warn',
    finding: warning.message,
    advice: `fix or remove ${warning.name}${where.inFile}; every variable is listed in ${where.reference}`,
  };
}

/** Settings the commands refuse (the settings could not be loaded at all). */
export function settingFailed(messages: readonly string[], where = onThisHost): CheckItem {
  return {
    id: 'config',
    status: 'fail',
    config: true,
    finding: `configuration: ${messages.join('; ')}`,
    advice: `fix ${messages.length === 1 ? 'the setting' : 'the settings'}${where.files}${where.restart}; every setting, its variable and range are listed in ${where.reference}`,
  };
}

/** The doctor runs with another state directory than the installed service (see config/service-state.ts). */
export function serviceStateDirItem(current: string, service: string): CheckItem {
  return {
    id: 'state-dir',
    status: 'warn',
    finding: `state directory ${current} is not the one of the device-agent service on this host (${service}): the doctor does not see what the service sees`,
    advice: SERVICE_STATE_ADVICE,
  };
}

/** The cloud settings, part of the configuration's check: a failure of theirs is the configuration's. */
export function cloudSettingsItem(target: CloudTarget): CheckItem {
  const finding = `cloud settings: ${safeUrl(target.baseUrl)}, user ${target.username}, API key from ${target.keySource}`;
  if (sentInClear(target.baseUrl)) {
    return {
      id: 'config',
      status: 'warn',
      finding: `${finding}; plain http to a remote host`,
      advice: `the API key travels unencrypted over http: use the https URL of the cloud in DEVICE_AGENT_BASE_URL${onThisHost.inFile}${onThisHost.restart}`,
    };
  }
  return { id: 'config', status: 'ok', finding };
}

/** Required cloud settings missing or unreadable (the messages of a ConfigError). */
export function cloudSettingsFailed(messages: readonly string[], where = onThisHost): CheckItem {
  return {
    id: 'config',
    status: 'fail',
    config: true,
    finding: `cloud settings: ${messages.join('; ')}`,
    advice: `set DEVICE_AGENT_BASE_URL and DEVICE_AGENT_USERNAME${where.inFile}, and the API key in ${where.key}${where.restart}; the cloud is checked once they are set`,
  };
}

export function nodeIdItem(facts: NodeIdFacts): CheckItem {
  const id = 'node-id';
  switch (facts.kind) {
    case 'configured':
      return { id, status: 'ok', finding: `node id ${facts.id} (DEVICE_AGENT_NODE_ID)` };
    case 'kept':
      return { id, status: 'ok', finding: `node id ${facts.id} (kept in ${facts.file})` };
    case 'new':
      return { id, status: 'ok', finding: `no node id yet; the first report keeps a new one in ${facts.dir} (writable)` };
    case 'unwritable':
      return {
        id,
        status: 'fail',
        config: true,
        finding: `state directory ${facts.dir} is not writable (${facts.reason}): the node id cannot be kept`,
        advice: `set DEVICE_AGENT_STATE_DIR to a directory the agent user may write (systemd: StateDirectory=device-agent), or set DEVICE_AGENT_NODE_ID${onThisHost.inFile}`,
      };
    case 'unreadable':
      return {
        id,
        status: 'fail',
        config: true,
        finding: `node id file ${facts.file} cannot be read (${facts.reason})`,
        advice: `give the file to the agent user (it may have been created by root), or set DEVICE_AGENT_NODE_ID${onThisHost.inFile}`,
      };
  }
}

// ---- adb -------------------------------------------------------------------

/** adb's internal version (host:version) as the adb tool prints it: 41 -> 1.0.41. */
function adbVersionName(internal: number) {
  return `1.0.${internal}`;
}

export function adbServerItem(label: string, version: number): CheckItem {
  return { id: 'adb.server', status: 'ok', finding: `adb server ${label}, version ${version} (adb ${adbVersionName(version)})` };
}

/** The server could not be asked; `service` (the platform's doctor words) knows its errors and variables. */
export function adbServerFailed(label: string, error: unknown, service: ServiceDoctor, where = onThisHost): CheckItem {
  const { socket, port } = service.addressVariables;
  const id = 'adb.server';
  const start = `start it with "adb start-server" (or systemctl start device-agent-adb), or point ${socket}=tcp:HOST:PORT (or ${port})${where.inFile} at the running server`;
  const unreachable = service.unreachable(error);
  if (unreachable !== undefined) {
    return { id, status: 'fail', finding: `adb server ${label}: not reachable (${unreachable})`, advice: start };
  }
  if (error instanceof NoAnswerError) {
    return {
      id,
      status: 'fail',
      finding: `adb server ${label}: connected, but no answer within ${formatDuration(error.timeoutMs)}`,
      advice: 'check that the address is an adb server and not another service; restart it with "adb kill-server", then "adb start-server"',
    };
  }
  return { id, status: 'fail', finding: `adb server ${label}: ${errorText(error)}`, advice: start };
}

/** The service's address variables (the platform's, `service.addressVariables`) could not be read as an address. */
export function adbAddressFailed(error: unknown, service: ServiceDoctor): CheckItem {
  const { socket, port } = service.addressVariables;
  return {
    id: 'adb.server',
    status: 'fail',
    config: true,
    finding: `adb server address: ${errorText(error)}`,
    advice: `set ${socket}=tcp:HOST:PORT (or ${port}=PORT)${onThisHost.inFile}, or unset both for tcp:localhost:5037`,
  };
}

/**
 * The adb command on PATH against the running server: an adb client of another version kills the server it finds ("adb
 * server version (40) doesn't match this client (41); killing..."), which drops every device.
 */
export function adbToolItem(tool: ToolVersion, serverVersion: number): CheckItem {
  const where = tool.path ?? 'adb on PATH';
  const release = tool.release ? `, ${tool.release}` : '';
  const id = 'adb.command';
  if (tool.version === serverVersion) {
    return { id, status: 'ok', finding: `adb command ${where}: ${adbVersionName(tool.version)}${release}, same version as the server` };
  }
  return {
    id,
    status: 'warn',
    finding: `adb command ${where} is ${adbVersionName(tool.version)}${release} but the server is ${adbVersionName(serverVersion)}: running it kills and restarts the server, and every device reconnects`,
    advice: 'run the adb that started the server (see the device-agent-adb unit), or install the same adb version on PATH',
  };
}

export function noDevicesItem(): CheckItem {
  return {
    id: 'adb.devices',
    status: 'warn',
    finding: 'devices: adb lists none',
    advice:
      'connect a device with USB debugging on (Developer options); for USB, check the cable and that the adb server user may open it (udev rule, plugdev group)',
  };
}

export function devicesFailed(error: unknown): CheckItem {
  return {
    id: 'adb.devices',
    status: 'fail',
    finding: `devices: adb could not list them: ${errorText(error)}`,
    advice: 'restart the adb server: adb kill-server, then adb start-server',
  };
}

// Passing states: adb is still working on them, waiting may be all it takes.
const TRANSIENT_STATES = new Set(['authorizing', 'connecting']);

/**
 * One device as adb lists it: a phone's item, which fails the doctor only with --phones fail; `service` says what to do
 * about a state other than ready. hiddenDevices naming only its adb serial hides nothing: the report hides by udid.
 */
export function deviceItem(facts: DeviceFacts, service: ServiceDoctor): CheckItem {
  const item: CheckItem = { id: 'phone', phone: facts.serial, ...stateItem(facts, service) };
  if (facts.hidden === 'serial') {
    const advice = `write its udid${facts.udid === undefined ? ' (device-agent list, UDID column)' : ` ${facts.udid}`} in hiddenDevices (DEVICE_AGENT_HIDDEN_DEVICES${onThisHost.inFile}) in place of its adb serial`;
    if (item.status === 'ok') item.status = 'warn';
    item.finding += `, not hidden: hiddenDevices names its adb serial, and the report hides by udid (${facts.udid ?? 'not read'})`;
    item.advice = item.advice === undefined ? advice : `${item.advice}; ${advice}`;
  }
  const at = [facts.usb && `usb ${facts.usb}`, facts.transportId && `transport ${facts.transportId}`].filter(Boolean).join(', ');
  if (at) item.finding += ` [${at}]`;
  return item;
}

function stateItem(facts: DeviceFacts, service: ServiceDoctor): CheckResult {
  const hidden = facts.hidden === 'udid' ? ', reported hidden' : '';
  const state = facts.state.trim() || 'unknown';
  if (state !== 'device') {
    return {
      status: TRANSIENT_STATES.has(state) ? 'warn' : 'fail',
      finding: `device ${facts.serial}: ${state}${hidden}`,
      advice: service.notReadyAdvice(state, facts.serial),
    };
  }
  if (facts.model === undefined) {
    return {
      status: 'warn',
      finding: `device ${facts.serial}: device${hidden}, but ${facts.unread ?? 'its shell gave no model'}`,
      advice: 'the device may be hung or overloaded: unlock it and check it, replug the cable, or reboot it',
    };
  }
  return { status: 'ok', finding: `device ${facts.serial}: device, ${facts.model}${hidden}` };
}

/** The answer of `getprop ro.product.model`: its first line, or undefined when empty. */
export function parseModel(output: string) {
  const line = output.split('\n')[0]?.trim();
  return line ? line : undefined;
}

// ---- cloud -----------------------------------------------------------------

export function cloudItem(target: CloudTarget, check: CredentialCheck): CheckItem {
  const devices = check.privateDevices === undefined ? '' : `, ${check.privateDevices} private ${check.privateDevices === 1 ? 'device' : 'devices'}`;
  return {
    id: 'cloud',
    status: 'ok',
    finding: `cloud ${safeUrl(target.baseUrl)} accepts the credentials of ${target.username}${devices}, answered in ${check.roundTripMs} ms`,
  };
}

export function cloudFailed(target: CloudTarget, error: unknown, where = onThisHost): CheckItem {
  return { id: 'cloud', status: 'fail', ...cloudProblem(target, error, where) };
}

function cloudProblem(target: CloudTarget, error: unknown, where: typeof onThisHost) {
  const url = safeUrl(target.baseUrl);
  const baseUrl = `DEVICE_AGENT_BASE_URL${where.inFile}`;
  if (error instanceof CloudAuthError) {
    const what = error.status === 403 ? 'refused access for' : 'rejected the credentials of';
    return {
      finding: `cloud ${url} ${what} ${target.username} (HTTP ${error.status}; API key from ${target.keySource})`,
      advice:
        `check DEVICE_AGENT_USERNAME${where.inFile} (username or email) and the API key in ${where.key}${where.restart}; keys are listed in the API keys settings of the account` +
        (error.status === 403 ? ', and the account must be allowed to report devices' : ''),
    };
  }
  if (error instanceof CloudProxyError) return { finding: `cloud ${url} not reachable: ${error.reason}`, advice: error.advice };
  if (error instanceof CloudUnavailableError) {
    const clock = error.code === 'CERT_NOT_YET_VALID' || error.code === 'CERT_HAS_EXPIRED';
    let advice = `check ${baseUrl}, DNS, and the firewall or proxy between this host and the cloud`;
    if (clock)
      advice = 'the certificate looks out of its validity period, often because the host clock is wrong: check timedatectl status and enable time sync';
    else if (error.status !== undefined) advice = 'the cloud itself is in trouble; the agent resends reports by itself, try the doctor again later';
    return { finding: `cloud ${url} not reachable: ${error.reason}`, advice };
  }
  if (error instanceof CloudProtocolError) {
    return {
      finding: `cloud ${url}: GET /devices did not answer like the v1 API (status ${error.status}, content-type "${error.contentType || 'none'}")`,
      advice: `${baseUrl} must be the v1 root, e.g. https://cloud.example.com/v1; check for a proxy or captive portal in between`,
    };
  }
  if (error instanceof CloudRejectedError) {
    return {
      finding: `cloud ${url} rejected GET /devices with HTTP ${error.status}${error.bodyExcerpt ? `: ${error.bodyExcerpt}` : ''}`,
      advice: `${baseUrl} must be the v1 root, e.g. https://cloud.example.com/v1`,
    };
  }
  if (error instanceof CloudError) return { finding: `cloud: ${error.message}`, advice: `check ${baseUrl}` };
  return { finding: `cloud ${url}: ${errorText(error)}`, advice: `check ${baseUrl} and the network` };
}

/** Host clock against the cloud's Date header. skewMs is the cloud's time minus the host's: positive when the host is behind. */
export function clockItem(skewMs: number | undefined): CheckItem {
  return { id: 'clock', ...clockResult(skewMs) };
}

function clockResult(skewMs: number | undefined): CheckResult {
  if (skewMs === undefined || !Number.isFinite(skewMs)) {
    return {
      status: 'warn',
      finding: 'clock: the cloud sent no usable Date header, skew not checked',
      advice: 'check the host clock by hand: timedatectl status should say "System clock synchronized: yes"',
    };
  }
  const size = Math.abs(skewMs);
  const direction = skewMs > 0 ? 'behind' : 'ahead of';
  if (size <= WARN_SKEW_MS) {
    return { status: 'ok', finding: `clock: this host and the cloud agree within ${formatDuration(Math.max(size, 1000))} (HTTP dates have 1 s resolution)` };
  }
  const advice = 'enable time sync on this host (timedatectl set-ntp true, or chrony) and check timedatectl status';
  if (size <= FAIL_SKEW_MS) {
    return { status: 'warn', finding: `clock: this host is ${formatDuration(size)} ${direction} the cloud`, advice };
  }
  return {
    status: 'fail',
    finding: `clock: this host is ${formatDuration(size)} ${direction} the cloud; TLS certificates and signed URLs break at this skew`,
    advice,
  };
}

// ---- helpers ---------------------------------------------------------------

/** 1 s, 45 s, 10 min, 3 h, 2 days: rounded, for people. */
export function formatDuration(ms: number) {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds < 120) return `${seconds} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.round(hours / 24)} days`;
}

/** The base URL without user info, query or fragment: enough to recognise, nothing secret. */
export function safeUrl(baseUrl: string) {
  const url = URL.parse(baseUrl);
  return url ? `${url.protocol}//${url.host}${url.pathname}` : '(invalid URL)';
}
