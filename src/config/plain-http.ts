// The API key goes in every request's Authorization header: over plain http to another host anyone on the path reads
// it. Refused unless allowPlainHttp says the path is trusted; loopback is not the network (and never proxied).

/** Whether a request to the base URL would carry the key in clear over the network. */
export function sentInClear(baseUrl: string) {
  const url = URL.parse(baseUrl);
  return url?.protocol === 'http:' && !isLoopbackHost(url.hostname);
}

/** A URL host name (as `URL.hostname` gives it) that is this host's loopback. */
export function isLoopbackHost(hostname: string) {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}
