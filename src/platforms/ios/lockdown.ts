// lockdown client on one tunnelled connection: one request at a time, each under a deadline; StartSession upgrades the
// same socket to TLS with the host's pair record (root certificate as the client certificate, as libimobiledevice does)
// and pins the phone's certificate to the record.
// A service StartService opens (mobile_image_mounter) speaks the same framing on its own connection, TLS from the
// start when it says so.
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import type net from 'node:net';
import tls from 'node:tls';
import { withDeadline } from './deadline.js';
import { IosProtocolError, LockdownError } from './errors.js';
import { type Dict, encodeLockdown, lockdownDecoder } from './framing.js';

export const LOCKDOWN_PORT = 62078;
const LABEL = 'device-agent';

const pem = (v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : typeof v === 'string' ? v : undefined);

export class LockdownClient {
  private stream: net.Socket | tls.TLSSocket;
  private decoder = lockdownDecoder();
  private pending: { resolve: (d: Dict) => void; reject: (e: Error) => void } | undefined;
  private queue: Dict[] = [];
  private failure: Error | undefined;
  private sessionId: string | undefined;

  constructor(private readonly raw: net.Socket) {
    this.stream = raw;
    raw.on('data', this.onData);
    raw.on('close', () => this.fail(new IosProtocolError('lockdown connection closed')));
    raw.on('error', (err) => this.fail(err));
  }

  private onData = (chunk: Buffer) => {
    try {
      for (const msg of this.decoder.push(chunk)) {
        const p = this.pending;
        this.pending = undefined;
        if (p) p.resolve(msg);
        else this.queue.push(msg);
      }
    } catch (err) {
      this.fail(err as Error);
      this.raw.destroy();
    }
  };

  private fail(err: Error) {
    this.failure ??= err;
    const p = this.pending;
    this.pending = undefined;
    p?.reject(err);
  }

  /** One request, its answer; a lockdown Error becomes a LockdownError. */
  async request(body: Dict, timeoutMs: number) {
    const name = String(body.Request);
    const reply = await this.command({ Label: LABEL, ...body }, timeoutMs, `lockdown ${name}`);
    if (typeof reply.Error === 'string') throw new LockdownError(name, reply.Error);
    return reply;
  }

  /**
   * One command of a lockdown service on this connection (the same framing:
   * mobile_image_mounter's `Command`), its answer as it came, an Error
   * included: what an error means is the service's to say. `step` names it in a deadline's error.
   */
  async command(body: Dict, timeoutMs: number, step = String(body.Command)) {
    if (this.pending) throw new Error('lockdown request while another is pending');
    if (this.failure) throw this.failure;
    const answer = new Promise<Dict>((resolve, reject) => {
      const queued = this.queue.shift();
      if (queued) resolve(queued);
      else this.pending = { resolve, reject };
    });
    this.stream.write(encodeLockdown(body));
    return withDeadline(answer, timeoutMs, step, () => this.close());
  }

  async queryType(timeoutMs: number) {
    const r = await this.request({ Request: 'QueryType' }, timeoutMs);
    return typeof r.Type === 'string' ? r.Type : '';
  }

  async getValue(domain: string | undefined, key: string | undefined, timeoutMs: number) {
    return (await this.request({ Request: 'GetValue', ...(domain && { Domain: domain }), ...(key && { Key: key }) }, timeoutMs)).Value;
  }

  /** StartSession, then TLS when lockdown asks for it (every iOS since 4). */
  async startSession(record: Dict, productVersion: string | undefined, timeoutMs: number) {
    const hostId = record.HostID;
    if (typeof hostId !== 'string') throw new IosProtocolError('pair record has no HostID');
    const r = await this.request({ Request: 'StartSession', HostID: hostId, SystemBUID: record.SystemBUID }, timeoutMs);
    if (typeof r.SessionID !== 'string') throw new IosProtocolError('StartSession answer has no SessionID');
    this.sessionId = r.SessionID;
    if (r.EnableSessionSSL === true) await this.secure(record, productVersion, timeoutMs);
  }

  /**
   * StartService inside a session: the port of a lockdown service on the
   * phone (reached through usbmuxd's Connect) and whether it speaks TLS from
   * its first byte.
   */
  async startService(service: string, timeoutMs: number) {
    const r = await this.request({ Request: 'StartService', Service: service }, timeoutMs);
    const port = r.Port;
    if (typeof port !== 'number' || !Number.isInteger(port) || port <= 0 || port > 65535)
      throw new IosProtocolError(`StartService ${service} answered no port`);
    return { port, ssl: r.EnableServiceSSL === true };
  }

  /**
   * TLS on this connection with the host's pair record (its root certificate
   * as the client's), the phone pinned to its DeviceCertificate: lockdown's
   * session after StartSession, a service's connection from its first byte.
   */
  async secure(record: Dict, productVersion: string | undefined, timeoutMs: number) {
    const cert = pem(record.RootCertificate);
    const key = pem(record.RootPrivateKey);
    const deviceCert = pem(record.DeviceCertificate);
    if (!cert || !key || !deviceCert) throw new IosProtocolError('pair record lacks RootCertificate, RootPrivateKey or DeviceCertificate');
    // iOS below 10 speaks TLS 1.0 only, which OpenSSL 3 allows at security level 0.
    const old = Number.parseInt(productVersion ?? '', 10) < 10;
    this.raw.removeListener('data', this.onData);
    const secure = tls.connect({
      socket: this.raw,
      cert,
      key,
      rejectUnauthorized: false,
      ...(old && { minVersion: 'TLSv1' as const, ciphers: 'DEFAULT@SECLEVEL=0' }),
    });
    this.stream = secure;
    this.decoder = lockdownDecoder();
    secure.on('error', (err: Error) => this.fail(err));
    const ready = once(secure, 'secureConnect').then(() => {
      // The phone must show the certificate the pairing gave it.
      const peer = secure.getPeerX509Certificate();
      if (!peer?.raw.equals(new X509Certificate(deviceCert).raw))
        throw new IosProtocolError('the phone did not present the DeviceCertificate of its pair record');
    });
    await withDeadline(ready, timeoutMs, 'lockdown TLS handshake', () => this.close());
    secure.on('data', this.onData);
  }

  /** Ends the session politely; the caller then closes. */
  async stopSession(timeoutMs: number) {
    if (!this.sessionId) return;
    const id = this.sessionId;
    this.sessionId = undefined;
    await this.request({ Request: 'StopSession', SessionID: id }, timeoutMs);
  }

  close() {
    this.stream.destroy();
    this.raw.destroy();
  }
}
