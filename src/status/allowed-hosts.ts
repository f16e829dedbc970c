// Which Host names the status endpoint answers. A web page can rebind a name of its own to 127.0.0.1 (DNS rebinding)
// and read the answer; the request still carries that name in Host, so answering only this endpoint's own names closes
// it. An IP literal cannot be rebound, and a request without Host comes from no browser. Pure.
import { isIP } from 'node:net';

export interface HostsInput {
  /** statusListen's host: the name the operator gave it. */
  listenHost: string;
  /** This machine's name (os.hostname()). */
  hostname: string;
  /** statusHosts: further names, or `*` for any. */
  allowed: readonly string[];
}

/** A predicate over the Host header: true when the endpoint should answer. */
export function hostAllower(input: HostsInput): (host: string | undefined) => boolean {
  if (input.allowed.includes('*')) return () => true;
  const names = new Set(
    [input.listenHost, input.hostname, input.hostname.split('.')[0]!, ...input.allowed, 'localhost', 'ip6-localhost', 'ip6-loopback'].map(normal),
  );
  return (header) => {
    if (header === undefined) return true;
    const name = hostOf(header);
    if (name === undefined) return false;
    if (isIP(name)) return true;
    return names.has(name) || name.endsWith('.localhost');
  };
}

/** The name of a Host header without its port, lower case; undefined when it is not one. */
export function hostOf(header: string) {
  const text = header.trim();
  const v6 = /^\[([0-9a-fA-F:.]+(?:%[\w.-]+)?)\](?::\d{1,5})?$/.exec(text);
  if (v6) return v6[1]!.toLowerCase();
  const named = /^([^:\s[\]/@]+)(?::\d{1,5})?$/.exec(text);
  return named ? normal(named[1]!) : undefined;
}

/** Lower case, without the root's trailing dot (`localhost.` is `localhost`). */
function normal(name: string) {
  return name.toLowerCase().replace(/\.$/, '');
}
