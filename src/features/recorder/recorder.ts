// The flight recorder at run time: what the agent already hears of each phone
// goes into its ring (ring.ts), and when an incident starts the ring is kept
// in one file (files.ts). Heard: its source's word on it (adb's, usbmuxd's
// transitions), the kernel's lines about its port (the USB layer's, through
// USB_EVIDENCE), readiness drift (the values readiness publishes), each
// action on it and its outcome, its battery and temperature as each
// inventory reads them, what the cloud answered about it; and what the other
// features tell it (INCIDENT_LOG): the in-service clock's state changes,
// quarantine's evidence. Incidents: a quarantine (quarantine starts it), a
// call for a person (recovery's, seen here), an action on its link that
// failed. It asks nothing of the phones.
import { join } from 'node:path';
import type { ActionDone, DeviceChange } from '../../devices/feature.js';
import { keepable, type EventKind, type IncidentKind, type IncidentLog, type PhoneRef } from '../../devices/incidents.js';
import { maskString } from '../../log/redact.js';
import type { Fact } from '../../devices/timeline.js';
import { PERSON } from '../../devices/verdicts.js';
import { READINESS_VALUES } from '../../devices/readiness-values.js';
import { keyParts } from '../../devices/record.js';
import type { DeviceSnapshot } from '../../devices/snapshot.js';
import { sourcePort, USB_EVIDENCE } from '../../devices/usb-evidence.js';
import { setBounded } from '../../util/bounded-set.js';
import type { FeatureContext } from '../context.js';
import { IncidentFiles } from './files.js';
import { Rings } from './ring.js';

/** The ports known of phones at most (bounded as the rings are). */
const MAX_PORTS = 1024;

/**
 * The recorder's parts: the rings and the incident files (the feature's page and metric read them), its log for the
 * other features (INCIDENT_LOG), and the feature hooks through which it hears the phones.
 */
export function recorder(ctx: FeatureContext) {
  const { registry, shared, clock, logger } = ctx;
  const r = ctx.settings.recorder;
  const rings = new Rings(r.eventsPerPhone);
  const files = ctx.stateDir === undefined ? undefined : new IncidentFiles(ctx.stateDir, { perPhone: r.incidentsPerPhone, total: r.incidentsTotal }, logger);
  /** Incidents written, by kind (its metric). */
  const written = new Map<IncidentKind, number>();
  /** Each phone's id by its record key, and its last port: so a line about a port, or a phone gone, is still its own. */
  const phones = new Map<string, PhoneRef>();
  const ports = new Map<string, PhoneRef>();
  /** The readiness values last seen of each record. */
  const values = new Map<string, Readonly<Record<string, string>>>();
  let started = false;
  let unfollow: (() => void) | undefined;

  const note = (phone: PhoneRef, kind: EventKind, text: string) => rings.add(phone, kind, text, clock.wall());

  const incident = (phone: PhoneRef, kind: IncidentKind, cause: string) => {
    written.set(kind, (written.get(kind) ?? 0) + 1);
    const at = clock.wall();
    note(phone, kind === 'quarantine' ? 'quarantine' : 'action', `incident: ${cause}`);
    if (!files || !started) return undefined;
    const file = {
      udid: phone.udid,
      serial: phone.serial,
      kind,
      cause: keepable(maskString(cause)),
      at,
      events: rings.of(phone),
    };
    const name = files.write(phone, kind, file);
    if (name === undefined) return undefined;
    logger.info(
      { serial: phone.serial, udid: phone.udid, kind, file: name },
      // The cause is said by its own layer's line: this one says where the history is, without repeating it.
      `${phone.udid ?? phone.serial}: incident (${kind}) kept with the phone's recent history in ${join(files.file, name)} (device-agent incidents ${phone.serial})`,
    );
    return name;
  };

  /** The phone a record is, as the recorder keys it (its udid once it said it). */
  const refOf = (key: string, serial: string, udid?: string) => {
    const ref: PhoneRef = { serial, udid: udid ?? phones.get(key)?.udid };
    setBounded(phones, key, ref, MAX_PORTS);
    return ref;
  };

  /** The phone the cloud knows by this udid, by the serial of a record that gave it, else the udid. */
  const refOfUdid = (udid: string) => ({ udid, serial: registry.byUdid(udid)[0]?.serial ?? udid });

  /** What the timeline hears that a phone's ring keeps: the cloud's word on it as it changes, a call for a person (an incident). */
  const heard = (fact: Fact) => {
    if (fact.kind === 'cloud' && fact.delivered)
      for (const c of fact.changed)
        note(refOfUdid(c.udid), 'cloud', c.refused !== undefined ? `the cloud refused it: ${c.refused}` : `the cloud stored it ${c.status}`);
    if (fact.kind === 'verdict' && fact.by === PERSON.name && fact.verdict?.words !== undefined)
      incident(refOfUdid(fact.udid), 'person-needed', `a person is needed: ${fact.verdict.words}`);
  };

  /** A kernel line about a port: the phone on it (or under the hub it names) hears it. */
  const kernel = (line: { port?: string; hub?: string; text: string; at: number }) => {
    for (const [port, ref] of ports) {
      const about =
        line.port === port || (line.hub !== undefined && port.startsWith(`${line.hub}.`)) || (line.port !== undefined && port.startsWith(`${line.port}.`));
      if (about) rings.add(ref, 'kernel', `kernel: ${line.text}`, line.at);
    }
  };

  /** The port a phone is on, on its source's word (adb's usb path, usbmuxd's LocationID): never where a serial was printed. */
  const place = (record: DeviceSnapshot | undefined, ref: PhoneRef) => {
    const port = sourcePort(shared.get(USB_EVIDENCE), record?.usb);
    if (port === undefined) return;
    for (const [p, r] of ports) if (r.serial === ref.serial && p !== port) ports.delete(p);
    setBounded(ports, port, ref, MAX_PORTS);
  };

  const log: IncidentLog = { note, incident };
  return {
    rings,
    files,
    written,
    log,
    start() {
      started = true;
      files?.prune();
      const unfollowKernel = shared.get(USB_EVIDENCE)?.follow?.(kernel);
      registry.timeline.on('fact', heard);
      unfollow = () => {
        unfollowKernel?.();
        registry.timeline.off('fact', heard);
      };
    },
    stop() {
      unfollow?.();
      started = false;
    },
    changed(changes: readonly DeviceChange[]) {
      for (const c of changes) {
        const record = registry.get(c.key);
        const ref = refOf(c.key, c.serial, record?.udid);
        place(record, ref);
        note(ref, 'adb', `${keyParts(c.key).platform} source: ${c.from ?? 'not listed'} → ${c.to ?? 'not listed'}`);
      }
    },
    answered(device: DeviceSnapshot) {
      const ref = refOf(device.key, device.serial, device.udid);
      place(device, ref);
      const b = device.last?.battery;
      const parts = [
        device.failures > 0 ? `inventory cut short (${device.failure?.text ?? 'a failure'})` : 'inventory answered',
        b?.percentage !== undefined && `battery ${b.percentage}%`,
        b?.temperature !== undefined && `${b.temperature}°C`,
        b?.status !== undefined && String(b.status).toLowerCase(),
      ];
      note(ref, device.failures > 0 ? 'inventory' : 'battery', parts.filter(Boolean).join(', '));
      const now = registry.facet(READINESS_VALUES).get(device.key);
      const before = values.get(device.key);
      if (now && before)
        for (const [check, value] of Object.entries(now))
          if (before[check] !== undefined && before[check] !== value) note(ref, 'readiness', `readiness drift: ${check} ${before[check]} → ${value}`);
      if (now) setBounded(values, device.key, now, MAX_PORTS);
    },
    acted(done: ActionDone) {
      if (done.device === undefined) return;
      const record = registry.get(done.device);
      const ref = refOf(done.device, record?.serial ?? keyParts(done.device).serial, record?.udid);
      const what = [done.action, ...(done.labels ?? [])].join(' ');
      note(ref, 'action', `${what}: ${done.outcome}`);
      // An action meant to bring its link back (recovery's kick, reconnect, power cycle) that failed.
      if (done.actsOn === 'link' && done.outcome === 'failed') incident(ref, 'recovery-failed', `${what} failed`);
    },
  };
}
