import { ConfigError } from '../../../config/errors.js';

export interface AdbServerAddress {
  host: string;
  port: number;
  /** Which setting decided it, for log lines and doctor. */
  source: string;
}

/**
 * Finds the adb server the way the adb tool does: ADB_SERVER_SOCKET (tcp:HOST:PORT), else ANDROID_ADB_SERVER_PORT on
 * localhost, else tcp:localhost:5037. adbkit's createClient reads no variable itself.
 */
export function resolveAdbServer(env: NodeJS.ProcessEnv, configured?: string) {
  const socket = env.ADB_SERVER_SOCKET || configured;
  if (socket) {
    const source = env.ADB_SERVER_SOCKET ? 'ADB_SERVER_SOCKET' : 'adbServerSocket (DEVICE_AGENT_ADB_SERVER_SOCKET)';
    const match = /^tcp:(.+):(\d{1,5})$/.exec(socket.trim());
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) {
      throw new ConfigError(source, `must be tcp:HOST:PORT with a port from 1 to 65535, e.g. tcp:127.0.0.1:5037; got ${JSON.stringify(socket)}`);
    }
    const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
    return { host, port, source: env.ADB_SERVER_SOCKET ? 'ADB_SERVER_SOCKET' : 'adbServerSocket' };
  }
  const portText = env.ANDROID_ADB_SERVER_PORT;
  if (portText) {
    const port = Number(portText);
    if (!/^\d+$/.test(portText.trim()) || port < 1 || port > 65535) {
      throw new ConfigError('ANDROID_ADB_SERVER_PORT', `must be a port number from 1 to 65535, e.g. 5037; got ${JSON.stringify(portText)}`);
    }
    return { host: '127.0.0.1', port, source: 'ANDROID_ADB_SERVER_PORT' };
  }
  return { host: '127.0.0.1', port: 5037, source: 'default tcp:localhost:5037' };
}

export function describe(address: AdbServerAddress) {
  return `tcp:${address.host}:${address.port} (${address.source})`;
}
