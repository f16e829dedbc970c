// A proxy setting read the way curl reads it: `[http://][user:password@]host[:port]`, no scheme meaning http://, port
// 1080 by default (CURLOPT_PROXY(3)). Only HTTP proxies: https:// or SOCKS is refused by name, never silently direct. Pure.

export interface ProxyEndpoint {
  host: string;
  port: number;
  /** http://host:port: what log lines and doctor show. Never carries credentials. */
  label: string;
  /** The proxy user, decoded; shown in doctor (the password never is). */
  username?: string;
  /** Value of the Proxy-Authorization header, when the URL carries credentials. */
  authorization?: string;
  /** The decoded password and its forms as written, for the log masker. */
  secrets: string[];
}

export const DEFAULT_PROXY_PORT = 1080;

/** The proxy a setting names, undefined when empty, or a problem that never repeats the value (it may hold a password). */
export function parseProxyUrl(value: string | undefined): ProxyEndpoint | undefined | { problem: string } {
  const text = (value ?? '').trim();
  if (text === '') return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http') {
    const what = scheme === 'https' ? 'a TLS connection to the proxy (https://)' : `${scheme}:// proxies`;
    return { problem: `${what} is not supported: give the proxy's http:// address, e.g. http://proxy.example.com:3128` };
  }
  const url = URL.parse(scheme === undefined ? `http://${text}` : text);
  if (!url) {
    return { problem: 'is not a proxy URL: expected http://[USER:PASSWORD@]HOST:PORT (percent-encode @ : / in the user and password)' };
  }
  if (!url.hostname) return { problem: 'names no proxy host: expected http://[USER:PASSWORD@]HOST:PORT' };
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    return { problem: 'must be only http://[USER:PASSWORD@]HOST:PORT, without a path (percent-encode @ : / in the user and password)' };
  }
  const port = url.port ? Number(url.port) : (writtenPort(text) ?? DEFAULT_PROXY_PORT);
  const endpoint: ProxyEndpoint = {
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    label: `http://${url.hostname}:${port}`,
    secrets: [],
  };
  if (url.username || url.password) {
    let username: string;
    let password: string;
    try {
      username = decodeURIComponent(url.username);
      password = decodeURIComponent(url.password);
    } catch {
      return { problem: 'has a user or password that is not valid percent-encoding' };
    }
    endpoint.username = username;
    endpoint.authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    endpoint.secrets = [...new Set([password, url.password, `${username}:${password}`].filter((s) => s.length > 0))];
  }
  return endpoint;
}

// URL drops a port equal to the scheme's default (":80"), which is not the proxy default.
function writtenPort(text: string) {
  const authority = text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split('/')[0]!;
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const match = /:(\d+)$/.exec(hostPort);
  return match ? Number(match[1]) : undefined;
}

export function isProblem(value: unknown): value is { problem: string } {
  return typeof value === 'object' && value !== null && 'problem' in value;
}
