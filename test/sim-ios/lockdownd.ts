// The device side of lockdown (port 62078) on one tunnelled connection:
// 4-byte big-endian length + plist (XML or bplist00; answers in the format
// asked), QueryType, GetValue, StartSession with TLS over the same socket and
// StopSession back to plaintext, as libimobiledevice expects.
import { Duplex } from 'node:stream';
import tls from 'node:tls';
import type net from 'node:net';
import * as plist from 'plist';
import { PUBLIC_KEYS, type PhoneProfile } from './phones.js';
import type { PairCerts } from './certs.js';

/**
 * paired: the host holds a pair record the phone accepts.
 * unpaired: no pair record; Pair answers PasswordProtected (phone locked).
 * untrusted: no pair record; Pair answers PairingDialogResponsePending (Trust prompt shown).
 * stale: the host has a record the phone forgot; StartSession answers InvalidHostID.
 * hang: lockdown accepts the connection and never answers.
 */
export type PairState = 'paired' | 'unpaired' | 'untrusted' | 'stale' | 'hang';

export interface LockdownPhone {
  profile: PhoneProfile;
  state: PairState;
  hostId: string;
  certs: PairCerts;
  /** Requests seen, for tests ("at most one session per cycle"). */
  log: { request: string; domain?: string; key?: string }[];
  sessions: number;
  /** TLS protocol negotiated per session ('TLSv1' for iOS 9), and whether the client showed a certificate. */
  tls: { protocol: string | null; clientCert: boolean }[];
  /**
   * A fault of the amfi domain in a session, for tests: `refused`, lockdown answers its GetValue with an
   * error (GetProhibited, as for a domain a host may not read); `close`, the connection closes on that request.
   */
  amfiFault?: 'refused' | 'close';
  /**
   * The diagnostics relay (com.apple.mobile.diagnostics_relay): what its IORegistry and GasGauge requests
   * answer, and its faults for tests: `refused`, StartService answers InvalidService; `status`, each request
   * a Status other than Success; `hang`, the service's connection never answers; `close`, it closes on the first
   * request. None: the service refuses.
   */
  relay?: { ioregistry?: Dict; gasGauge?: Dict; fault?: 'refused' | 'status' | 'hang' | 'close' };
}

const AMFI = 'com.apple.security.mac.amfi';
export const DIAGNOSTICS_RELAY = 'com.apple.mobile.diagnostics_relay';
/** The port StartService hands out for the relay (a real phone picks one above 49152 each time). */
export const RELAY_PORT = 49_153;

type Dict = Record<string, unknown>;

export function encodeFrame(body: Dict, binary: boolean): Buffer {
  const payload = binary ? Buffer.from(plist.buildBinary(body as never)) : Buffer.from(plist.build(body as never), 'utf8');
  const head = Buffer.alloc(4);
  head.writeUInt32BE(payload.length);
  return Buffer.concat([head, payload]);
}

export function decodePlist(payload: Buffer): unknown {
  return payload.subarray(0, 8).toString('latin1') === 'bplist00' ? plist.parseBinary(payload) : plist.parse(payload.toString('utf8'));
}

export function serveLockdown(raw: net.Socket, phone: LockdownPhone): void {
  if (phone.state === 'hang') {
    raw.on('data', () => {});
    raw.on('error', () => {});
    return;
  }
  let buffered = Buffer.alloc(0);
  let tlsSocket: tls.TLSSocket | undefined;
  let tlsInput: Duplex | undefined;
  let sessionId: string | undefined;
  let plainAfterTls = false;

  const send = (body: Dict, binary: boolean) => {
    const frame = encodeFrame(body, binary);
    if (tlsSocket) tlsSocket.write(frame);
    else raw.write(frame);
  };

  const onPlain = (chunk: Buffer) => {
    if (tlsInput) {
      tlsInput.push(chunk);
      return;
    }
    buffered = Buffer.concat([buffered, chunk]);
    drain(false);
  };

  const drain = (secure: boolean) => {
    for (;;) {
      // After StopSession the client may still send TLS records (close_notify)
      // before going back to plaintext; a lockdown length never starts 0x15 0x03.
      if (plainAfterTls && !secure && buffered.length >= 5 && buffered[0] === 0x15 && buffered[1] === 0x03) {
        const len = buffered.readUInt16BE(3);
        if (buffered.length < 5 + len) return;
        buffered = buffered.subarray(5 + len);
        continue;
      }
      if (buffered.length < 4) return;
      const len = buffered.readUInt32BE(0);
      if (len > 1 << 20) {
        raw.destroy();
        return;
      }
      if (buffered.length < 4 + len) return;
      const payload = buffered.subarray(4, 4 + len);
      buffered = buffered.subarray(4 + len);
      let req: Dict;
      try {
        req = decodePlist(payload) as Dict;
      } catch {
        raw.destroy();
        return;
      }
      handle(req, payload.subarray(0, 8).toString('latin1') === 'bplist00');
    }
  };

  const handle = (req: Dict, binary: boolean) => {
    const request = String(req.Request ?? '');
    phone.log.push({ request, domain: req.Domain as string | undefined, key: req.Key as string | undefined });
    const reply = (body: Dict) => send({ Request: request, ...body }, binary);
    switch (request) {
      case 'QueryType':
        return reply({ Type: 'com.apple.mobile.lockdown' });
      case 'GetValue':
        if (sessionId !== undefined && req.Domain === AMFI && phone.amfiFault === 'refused')
          return reply({ Domain: AMFI, Key: req.Key, Error: 'GetProhibited' });
        if (sessionId !== undefined && req.Domain === AMFI && phone.amfiFault === 'close') {
          raw.destroy();
          return;
        }
        return reply(getValue(phone, req, sessionId !== undefined));
      case 'Pair':
        return reply({ Error: phone.state === 'untrusted' ? 'PairingDialogResponsePending' : 'PasswordProtected' });
      case 'ValidatePair':
        return reply(phone.state === 'paired' ? {} : { Error: 'InvalidHostID' });
      case 'StartSession': {
        if (phone.state !== 'paired' || req.HostID !== phone.hostId) return reply({ Error: 'InvalidHostID' });
        sessionId = `SIM-${phone.sessions++}`;
        reply({ SessionID: sessionId, EnableSessionSSL: true });
        startTls();
        return;
      }
      case 'StopSession': {
        if (!sessionId || req.SessionID !== sessionId) return reply({ Error: 'NoRunningSession' });
        sessionId = undefined;
        reply({});
        stopTls();
        return;
      }
      case 'StartService': {
        if (!sessionId) return reply({ Error: 'NoRunningSession' });
        if (req.Service !== DIAGNOSTICS_RELAY || !phone.relay || phone.relay.fault === 'refused')
          return reply({ Service: req.Service, Error: 'InvalidService' });
        return reply({ Service: req.Service, Port: RELAY_PORT, EnableServiceSSL: true });
      }
      case 'Goodbye':
        reply({ Result: 'Success' });
        return;
      default:
        return reply({ Error: 'InvalidRequest' });
    }
  };

  const startTls = () => {
    const oldIos = Number.parseInt(String(phone.profile.root.ProductVersion), 10) < 10;
    tlsInput = new Duplex({
      read() {},
      write(chunk, _enc, cb) {
        if (raw.destroyed) cb();
        else raw.write(chunk, () => cb());
      },
    });
    tlsInput.on('error', () => {});
    tlsSocket = new tls.TLSSocket(tlsInput, {
      isServer: true,
      cert: phone.certs.deviceCert,
      key: phone.certs.deviceKey,
      requestCert: true,
      rejectUnauthorized: false,
      // iOS below 10 spoke TLS 1.0 only; OpenSSL 3 needs security level 0 for it.
      ...(oldIos ? { minVersion: 'TLSv1' as const, maxVersion: 'TLSv1' as const, ciphers: 'DEFAULT@SECLEVEL=0' } : {}),
    });
    tlsSocket.on('error', () => raw.destroy());
    tlsSocket.once('secure', () => {
      const peer = tlsSocket?.getPeerCertificate();
      phone.tls.push({ protocol: tlsSocket?.getProtocol() ?? null, clientCert: !!peer && Object.keys(peer).length > 0 });
    });
    tlsSocket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      drain(true);
    });
  };

  const stopTls = () => {
    const old = tlsSocket;
    tlsSocket = undefined;
    tlsInput = undefined;
    plainAfterTls = true;
    buffered = Buffer.alloc(0);
    // The StopSession answer is already queued inside the TLS socket; let it
    // flush, then forget the TLS state without touching the raw socket.
    setImmediate(() => old?.removeAllListeners('data'));
  };

  raw.on('data', onPlain);
  raw.on('error', () => {});
}

function getValue(phone: LockdownPhone, req: Dict, inSession: boolean): Dict {
  const domain = typeof req.Domain === 'string' ? req.Domain : undefined;
  const key = typeof req.Key === 'string' ? req.Key : undefined;
  const root: Dict = { ...phone.profile.root, DevicePublicKey: Buffer.from(phone.certs.devicePublicKey) };
  const allowed = (k: string) => inSession || PUBLIC_KEYS.has(k);
  const out: Dict = {};
  if (domain) out.Domain = domain;
  if (key) out.Key = key;
  if (!domain) {
    if (key) {
      if (!(key in root)) return { ...out, Error: 'MissingValue' };
      if (!allowed(key)) return { ...out, Error: 'MissingValue' };
      return { ...out, Value: root[key] };
    }
    return { ...out, Value: Object.fromEntries(Object.entries(root).filter(([k]) => allowed(k))) };
  }
  const values = phone.profile.domains[domain];
  if (!inSession || !values) return { ...out, Error: 'MissingValue' };
  if (key) return key in values ? { ...out, Value: values[key] } : { ...out, Error: 'MissingValue' };
  return { ...out, Value: values };
}

/**
 * The diagnostics relay's side of a service connection: TLS from the first
 * byte with the phone's certificate, then lockdown's framing: IORegistry and
 * GasGauge answered from the phone's profile, Goodbye, as pymobiledevice3's
 * DiagnosticsService and libimobiledevice's diagnostics_relay ask them.
 */
export function serveRelay(raw: net.Socket, phone: LockdownPhone): void {
  raw.on('error', () => {});
  const secure = new tls.TLSSocket(raw, {
    isServer: true,
    cert: phone.certs.deviceCert,
    key: phone.certs.deviceKey,
    requestCert: true,
    rejectUnauthorized: false,
  });
  secure.on('error', () => raw.destroy());
  let buffered = Buffer.alloc(0);
  secure.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32BE(0)) {
      const len = buffered.readUInt32BE(0);
      const req = decodePlist(buffered.subarray(4, 4 + len)) as Dict;
      buffered = buffered.subarray(4 + len);
      const request = String(req.Request ?? '');
      phone.log.push({ request: `relay:${request}` });
      const relay = phone.relay;
      if (relay?.fault === 'hang') continue;
      if (relay?.fault === 'close') {
        raw.destroy();
        return;
      }
      const answer = (body: Dict) => secure.write(encodeFrame(body, false));
      if (relay?.fault === 'status') {
        answer({ Status: 'UnknownRequest' });
        continue;
      }
      if (request === 'IORegistry') answer({ Status: 'Success', Diagnostics: { IORegistry: relay?.ioregistry ?? {} } });
      else if (request === 'GasGauge') answer({ Status: 'Success', Diagnostics: { GasGauge: relay?.gasGauge ?? {} } });
      else if (request === 'Goodbye') answer({ Status: 'Success' });
      else answer({ Status: 'UnknownRequest' });
    }
  });
}
