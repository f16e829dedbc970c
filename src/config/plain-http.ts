// The API key goes in every request's Authorization header: over plain http
// to another host it crosses the network readable by anyone on the path. A
// base URL of that kind is refused unless allowPlainHttp says the path is
// trusted; loopback (a local tunnel or a test cloud) is not the network, and
// is therefore never sent through a proxy either (cloud/proxy/route.ts).

/** Whether a request to the base URL would carry the key in clear over the network. */
export function sentInClear(baseUrl: string): boolean {
  try {
    const url = new URL(baseUrl);
    return url.protocol === 'http:' && !isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}

/** A URL host name (as `URL.hostname` gives it) that is this host's loopback. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
