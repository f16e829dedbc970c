import { describe, expect, it } from 'vitest';
import { resolveAdbServer } from '../../src/adb/server-address.js';

describe('resolveAdbServer', () => {
  it('follows the adb tool: ADB_SERVER_SOCKET, then ANDROID_ADB_SERVER_PORT, then 5037', () => {
    expect(resolveAdbServer({ ADB_SERVER_SOCKET: 'tcp:10.0.0.2:5038', ANDROID_ADB_SERVER_PORT: '6000' })).toMatchObject({ host: '10.0.0.2', port: 5038 });
    expect(resolveAdbServer({ ANDROID_ADB_SERVER_PORT: '6000' })).toMatchObject({ host: '127.0.0.1', port: 6000 });
    expect(resolveAdbServer({})).toMatchObject({ host: '127.0.0.1', port: 5037 });
    expect(resolveAdbServer({}, 'tcp:adb-host:5037')).toMatchObject({ host: 'adb-host', port: 5037, source: 'adbServerSocket' });
    expect(resolveAdbServer({ ADB_SERVER_SOCKET: 'tcp:[::1]:5037' })).toMatchObject({ host: '::1', port: 5037 });
  });

  it('rejects malformed values with the variable name', () => {
    expect(() => resolveAdbServer({ ADB_SERVER_SOCKET: 'localhost:5037' })).toThrow(/ADB_SERVER_SOCKET/);
    expect(() => resolveAdbServer({ ANDROID_ADB_SERVER_PORT: 'abc' })).toThrow(/ANDROID_ADB_SERVER_PORT/);
  });
});
