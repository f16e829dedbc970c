// The doctor's iOS checks: is usbmuxd there and answering, and for each iPhone, is it paired with this host and does
// its lockdown answer, and, with a readiness baseline, is it ready for automation (the facts the source publishes,
// src/platforms/ios/readiness.ts, judged as the agent judges them). Uses the agent's own client, so what the doctor
// sees is what the agent will see.
import { existsSync } from 'node:fs';
import type { Settings } from '../config/schema.js';
import { parseUsbmuxdAddress, type UsbmuxdAddress } from '../config/usbmuxd-address.js';
import type { FeatureDoctor } from '../features/context.js';
import { iosDeviceInfo, NOT_PAIRED_MESSAGE } from '../platforms/ios/inventory.js';
import { pairedFacts } from '../platforms/ios/readiness.js';
import { mapLimit } from '../util/limit.js';
import { named, type CheckItem, type CheckResult } from './checklist.js';
import { whereOn } from './where.js';

type IosSettings = Pick<Settings, 'ios' | 'usbmuxdSocketAddress' | 'iosTimeoutSeconds' | 'probeConcurrency'>;

/** judgeFacts: an iPhone's readiness from its lockdown facts, as the features judge it (FeatureDoctor.facts); none: no baseline asks. */
export async function checkIos(settings: IosSettings, env: NodeJS.ProcessEnv, judgeFacts?: FeatureDoctor['facts']): Promise<CheckItem[]> {
  const usbmuxd = (result: CheckResult) => named('usbmuxd', [result]);
  if (settings.ios === false) return usbmuxd({ status: 'ok', finding: 'iOS support is off (ios: false): iPhones are not reported' });
  let address: UsbmuxdAddress;
  try {
    address = parseUsbmuxdAddress(env.USBMUXD_SOCKET_ADDRESS || settings.usbmuxdSocketAddress);
  } catch (err) {
    return usbmuxd({ status: 'fail', finding: (err as Error).message, advice: `set USBMUXD_SOCKET_ADDRESS${whereOn().inFile} to UNIX:/path or HOST:PORT` });
  }
  if ('path' in address && !existsSync(address.path)) {
    if (settings.ios === true) {
      return usbmuxd({
        status: 'warn',
        finding: `iPhones are asked for (ios: true), but there is no usbmuxd socket at ${address.path}: none can be reported`,
        advice: `install and start usbmuxd (apt-get install usbmuxd), or set USBMUXD_SOCKET_ADDRESS${whereOn().inFile} to where it listens`,
      });
    }
    // Without usbmuxd the agent cannot see an iPhone at all, so it must not say there is none.
    return usbmuxd({
      status: 'ok',
      finding: `no usbmuxd socket at ${address.path}: iPhones are not looked for on this host (an iPhone plugged here is not seen; install usbmuxd to report iPhones)`,
    });
  }
  const timeoutMs = settings.iosTimeoutSeconds * 1000;
  const { listDevices } = await import('../platforms/ios/usbmuxd-client.js');
  const { probeIphone } = await import('../platforms/ios/probe.js');
  let devices;
  try {
    devices = await listDevices(address, timeoutMs);
  } catch (err) {
    return usbmuxd({
      status: 'fail',
      finding: `usbmuxd at ${address.label} does not answer: ${(err as Error).message}`,
      advice: 'check `systemctl status usbmuxd`; restart it with `systemctl restart usbmuxd`',
    });
  }
  const items = usbmuxd({ status: 'ok', finding: `usbmuxd at ${address.label} answers: ${devices.length} iPhone(s)` });
  const phones = await mapLimit(devices, settings.probeConcurrency, async (device): Promise<CheckItem[]> => {
    const r = await probeIphone(address, device, timeoutMs);
    const phone = { id: 'phone', phone: device.udid };
    if (r.kind === 'ok') {
      const info = iosDeviceInfo(device.udid, r.values);
      const line: CheckItem = {
        ...phone,
        status: 'ok',
        finding: `iPhone ${device.udid} (${info.modelName ?? '?'}, iOS ${info.platformVersion ?? '?'}): paired, lockdown answers`,
      };
      // The readiness the agent reports for it, from the same session's facts (a not-paired phone has its own line above).
      const verdict = judgeFacts?.(device.udid, new Map(Object.entries(pairedFacts(r.values.root, r.values.amfi))), info.brandName);
      return verdict === undefined ? [line] : [line, verdict];
    }
    const model = r.kind === 'not-paired' && r.public ? iosDeviceInfo(device.udid, { root: r.public }).modelName : undefined;
    const [finding, advice, why] =
      r.kind === 'not-paired'
        ? [`iPhone ${device.udid}${model ? ` (${model})` : ''}: not paired with this host (${r.detail})`, NOT_PAIRED_MESSAGE, 'it is not paired with this host']
        : [
            `iPhone ${device.udid}: lockdown does not answer (${r.detail})`,
            'unlock the phone; if it stays, unplug and replug it or restart usbmuxd',
            'its lockdown does not answer',
          ];
    const line: CheckItem = { ...phone, status: 'warn', finding, advice };
    // Its readiness, when a baseline asks for it, is unread without a session.
    return judgeFacts ? [line, { id: 'phone.readiness', phone: device.udid, status: 'unread', finding: why }] : [line];
  });
  return [...items, ...phones.flat()];
}
