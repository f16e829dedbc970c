import { describe, expect, it } from 'vitest';
import { resolveAdbServer } from '../../../../src/platforms/android/adb/server-address.js';
import { ConfigError } from '../../../../src/config/errors.js';

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

  it('treats every malformed address as a configuration error (exit 2) that shows a valid value', () => {
    for (const env of [
      { ANDROID_ADB_SERVER_PORT: 'abc' },
      { ANDROID_ADB_SERVER_PORT: '70000' },
      { ANDROID_ADB_SERVER_PORT: '5037.5' },
      { ADB_SERVER_SOCKET: 'tcp:host' },
      { ADB_SERVER_SOCKET: 'tcp:host:0' },
      { ADB_SERVER_SOCKET: 'tcp:host:99999' },
    ]) {
      expect(() => resolveAdbServer(env)).toThrow(ConfigError);
      expect(() => resolveAdbServer(env)).toThrow(/e\.g\. (tcp:127\.0\.0\.1:)?5037/);
    }
  });
});
