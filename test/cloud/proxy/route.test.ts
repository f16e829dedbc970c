import { describe, expect, it } from 'vitest';
import { planProxies, proxySecrets, routeFor } from '../../../src/cloud/proxy/route.js';

describe('routeFor', () => {
  const plan = planProxies({ httpsProxy: 'http://u:pw-1234@proxy.corp:3128', httpProxy: 'http://plain.corp:8080', noProxy: '.internal.example, 10.0.0.0/8' });

  it('sends https through httpsProxy and http through httpProxy', () => {
    const https = routeFor(plan, new URL('https://cloud.example.com/v1/devices'));
    expect(https).toMatchObject({ kind: 'proxy', proxy: { label: 'http://proxy.corp:3128' } });
    expect(https.kind === 'proxy' && https.setting).toMatch(
      /^httpsProxy \(DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential, https_proxy or HTTPS_PROXY\)$/,
    );
    expect(routeFor(plan, new URL('http://cloud.example.com/v1'))).toMatchObject({ kind: 'proxy', proxy: { label: 'http://plain.corp:8080' } });
  });

  it('goes direct for hosts NO_PROXY names, saying which entry', () => {
    expect(routeFor(plan, new URL('https://cloud.internal.example/v1'))).toEqual({ kind: 'direct', why: 'no-proxy-entry', entry: 'internal.example' });
    expect(routeFor(plan, new URL('https://10.1.2.3:8443/v1'))).toEqual({ kind: 'direct', why: 'no-proxy-entry', entry: '10.0.0.0/8' });
  });

  it('uses the scheme default port for NO_PROXY entries with a port', () => {
    const ported = planProxies({ httpsProxy: 'http://proxy:3128', noProxy: 'cloud.example.com:443' });
    expect(routeFor(ported, new URL('https://cloud.example.com/v1')).kind).toBe('direct');
    expect(routeFor(ported, new URL('https://cloud.example.com:8443/v1')).kind).toBe('proxy');
  });

  it('goes direct when the scheme has no proxy', () => {
    const only = planProxies({ httpsProxy: 'http://proxy:3128' });
    expect(routeFor(only, new URL('http://cloud.example.com/v1'))).toMatchObject({ kind: 'direct', why: 'no-proxy-set' });
    expect(routeFor(planProxies({}), new URL('https://cloud.example.com/v1'))).toMatchObject({ kind: 'direct', why: 'no-proxy-set' });
  });

  it('never sends plain http to loopback through a proxy, where the API key would cross it in clear (issue 42)', () => {
    for (const url of ['http://127.0.0.1:8080/v1', 'http://localhost/v1', 'http://[::1]:9/v1', 'http://127.3.2.1/v1']) {
      expect(routeFor(plan, new URL(url)), url).toMatchObject({ kind: 'direct', why: 'loopback-plain-http', proxy: { label: 'http://plain.corp:8080' } });
    }
    // https keeps its proxy: the key is inside TLS; a name that only resolves to loopback is another host, as for allowPlainHttp.
    expect(routeFor(plan, new URL('https://127.0.0.1:8443/v1')).kind).toBe('proxy');
    expect(routeFor(plan, new URL('http://cloud.localhost/v1')).kind).toBe('proxy');
  });

  it('lists the passwords and credentials the masker must hide', () => {
    expect(proxySecrets(plan)).toEqual(['pw-1234', 'u:pw-1234']);
  });
});
