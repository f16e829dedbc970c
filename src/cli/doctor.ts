import { daemonView } from './daemon-view.js';
import { buildParts, cloudClient } from '../agent/build.js';
import { serviceDoctor } from '../agent/platforms.js';
import { ConfigError, ConfigErrors, onConfigError } from '../config/errors.js';
import { stateDirOf } from '../config/node-id.js';
import { otherServiceStateDir } from '../config/service-state.js';
import { paintFor } from '../util/paint.js';
import { atPhoneLevel, checklistJson, formatChecklist, exitCodeOf, named, verdicts, type PhoneLevel } from '../doctor/checklist.js';
import { whereOn } from '../doctor/where.js';
import { checkAdb, checkCloud, inspectNodeId, runAdbVersion } from '../doctor/checks.js';
import { checkIos } from '../doctor/ios.js';
import { checkNetwork } from '../doctor/proxy.js';
import { cloudNetwork } from '../cloud/network.js';
import { checkStatusEndpoint } from '../doctor/status-endpoint.js';
import { hubHelperItems } from '../hub-helper/doctor-item.js';
import {
  adbAddressFailed,
  cloudSettingsFailed,
  cloudSettingsItem,
  nodeIdItem,
  serviceStateDirItem,
  settingFailed,
  settingsItem,
  variableWarning,
} from '../doctor/findings.js';
import type { Setup } from './setup.js';
import { sendingCredentials } from './setup.js';
import { DoctorWait } from './doctor-wait.js';
import type { StatusLine } from './progress.js';
import type { Sink } from '../log/logger.js';

const ADB_ANSWER_TIMEOUT_MS = 10_000;
const TUNNEL_TIMEOUT_MS = 10_000;
// A getprop answers at once on a healthy device; the full probe timeout is for the inventory.
const MODEL_TIMEOUT_MS = 5_000;
// With the readiness sections (three framework commands, each under the device's own 10 s `timeout`): a healthy phone answers in a second or two.
const READINESS_TIMEOUT_MS = 15_000;

/**
 * Checks the configuration, the adb server, each device and the cloud (adb and cloud side by side), prints a checklist
 * and returns 0, 1 when something failed, or 2 for the configuration. A phone's failure is a warning unless phones is 'fail'.
 * `output`: JSON for scripts (--json), and on a terminal a line saying what is still checked.
 */
export async function doctor(
  setup: Setup,
  env: NodeJS.ProcessEnv,
  stdout: Sink,
  phones: PhoneLevel = 'warn',
  output: { json?: boolean; line?: StatusLine } = {},
) {
  const { settings, logger } = setup;
  const config = [settingsItem(setup.variables), ...setup.warnings.map((w) => variableWarning(w))];

  const credentials = onConfigError(
    () => sendingCredentials(settings, env),
    (error) => void config.push(cloudSettingsFailed(error.problems.map((p) => p.message))),
  );
  const target = credentials && {
    baseUrl: settings.baseUrl,
    username: credentials.username,
    keySource: credentials.source,
  };
  if (target) config.push(cloudSettingsItem(target));
  if (credentials?.exposed)
    config.push({ id: 'config', status: 'warn', finding: credentials.exposed, advice: 'only root and the user the agent runs as should read the key' });
  const nodeId = inspectNodeId(settings, env);
  config.push(nodeIdItem(nodeId));
  const stateDir = stateDirOf(settings, env);
  const serviceDir = otherServiceStateDir(stateDir, Boolean(settings.nodeId));
  if (serviceDir) config.push(serviceStateDirItem(stateDir, serviceDir));

  // The same parts as the daemon's: the adb client and the sources it would use, and the features whose lines follow.
  const built = onConfigError(
    () => buildParts(settings, env, logger, { nodeId: 'doctor' }),
    (error) => error,
  );
  const parts = built instanceof ConfigError ? undefined : built;
  // A service address that cannot be used fails its own line; the features' lines stand on the service's default one, never asked.
  const { socket, port } = serviceDoctor.addressVariables;
  const doctors = (
    parts ?? buildParts({ ...settings, adbServerSocket: undefined }, { ...env, [socket]: undefined, [port]: undefined }, logger, { nodeId: 'doctor' })
  ).features.flatMap((f) => (f.doctor ? [f.doctor] : []));
  // A phone's shell takes the longer deadline when a feature's sections ride on it (readiness's, wear's).
  const longShell = doctors.some((d) => d.reads?.some((r) => r !== 'battery'));
  const shellTimeoutMs = Math.min(longShell ? READINESS_TIMEOUT_MS : MODEL_TIMEOUT_MS, settings.probeTimeoutSeconds * 1000);
  const wait = new DoctorWait(shellTimeoutMs / 1000);
  output.line?.follow(() => wait.text());
  // The proxy and the CAs (issue 26): a caFile that cannot be used fails here, and the cloud is not asked.
  const network = onConfigError(
    () => cloudNetwork(settings, env),
    // once and run stop on it with exit 2: a configuration failure.
    (error) =>
      void config.push({
        id: 'tls',
        status: 'fail',
        config: true,
        finding: `TLS trust: ${error.message}`,
        advice: `name a readable PEM file of CA certificates in caFile (DEVICE_AGENT_CA_FILE${whereOn().inFile}), or unset it`,
      }),
  );

  // Every check at once: the programs the settings call on (the hub tool, the iOS tools) beside adb's phones and the cloud.
  const programs = Promise.all([
    ...doctors.flatMap((d) => (d.config ? [wait.check('the programs the settings name', d.config(env))] : [])),
    // The hub tool as the daemon meets it, through the hub helper (the package's default).
    wait.check(
      'the hub helper',
      hubHelperItems(settings).then((items) => named('hub.helper', items)),
    ),
  ]);
  const adbChecked = parts
    ? checkAdb(wait.adb(parts.services.adb, 'the adb server'), {
        service: serviceDoctor,
        answerTimeoutMs: ADB_ANSWER_TIMEOUT_MS,
        shellTimeoutMs,
        concurrency: settings.probeConcurrency,
        hiddenDevices: settings.hiddenDevices,
        adbTool: () => runAdbVersion(env),
        features: doctors,
      })
    : Promise.resolve([adbAddressFailed(built, serviceDoctor)]);
  const networkChecked = target && network ? checkNetwork(settings.baseUrl, network, env, TUNNEL_TIMEOUT_MS) : Promise.resolve([]);
  const cloudChecked = target && credentials && network ? checkCloud(cloudClient(settings, credentials, logger), target) : Promise.resolve([]);

  // iOS: usbmuxd and each iPhone's pairing state, beside adb (also when the iOS source is off, to say why).
  const iosChecked = checkIos(settings, env, doctors.find((d) => d.facts)?.facts);
  // The status endpoint as a scraper sees it (issue 33): the agent's, another program's, or none.
  const statusChecked = checkStatusEndpoint({
    listen: settings.statusListen,
    stateDir,
    webConfigFile: settings.statusWebConfigFile,
    // Whose agent should answer there: this host's node id, to tell it from another agent on the port.
    nodeId: 'id' in nodeId ? { id: nodeId.id, from: nodeId.kind === 'kept' ? `kept in ${nodeId.file}` : 'DEVICE_AGENT_NODE_ID' } : undefined,
  }).then((items) => named('status-endpoint', items));
  const [programItems, adbItems, cloudItems, iosItems, networkItems, statusItems] = await Promise.all([
    programs,
    wait.check('the adb server', adbChecked),
    wait.check('the cloud', cloudChecked),
    wait.check('usbmuxd', iosChecked),
    wait.check('the proxy', networkChecked),
    wait.check('the status endpoint', statusChecked),
  ]);
  output.line?.done();
  const items = atPhoneLevel(
    [
      ...config,
      ...programItems.flat(),
      ...adbItems,
      ...doctors.flatMap((d) => d.host?.(env) ?? []),
      ...iosItems,
      ...networkItems,
      ...cloudItems,
      ...statusItems,
    ],
    phones,
  );
  for (const item of items) {
    if (item.status !== 'ok') logger.debug({ check: item.id, status: item.status, finding: item.finding }, 'doctor finding');
  }
  const checks = verdicts(items);
  // The phones as the agent running here knows them now (what its report, list, /metrics and page say), beside what this
  // doctor read of them itself.
  const daemon = output.json ? await daemonView(stateDir) : undefined;
  const phonesNow = daemon?.rows.map((r) => ({
    udid: r.udid,
    serial: r.serial,
    state: r.state,
    status: r.status,
    readiness: r.features?.readiness,
    quarantined: r.quarantined,
    inService: r.inService,
  }));
  stdout.write(output.json ? checklistJson(checks, phonesNow) : formatChecklist(checks, paintFor(stdout, env)));
  return exitCodeOf(checks);
}

/** The settings could not be loaded: the checklist names every problem (and unknown variables), checks nothing else, exit 2. */
export function doctorUnconfigured(error: ConfigError, env: NodeJS.ProcessEnv, stdout: Sink, json = false) {
  const warnings = error instanceof ConfigErrors ? error.warnings : [];
  const checks = verdicts([settingFailed(error.problems.map((p) => p.message)), ...warnings.map((w) => variableWarning(w))]);
  stdout.write(json ? checklistJson(checks) : formatChecklist(checks, paintFor(stdout, env)));
  return exitCodeOf(checks);
}
