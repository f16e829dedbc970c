export interface AdbServerAddress {
  host: string;
  port: number;
  /** Which setting decided it, for log lines and doctor. */
  source: string;
}

/**
 * Finds the adb server the way the adb tool does: ADB_SERVER_SOCKET
 * (tcp:HOST:PORT), else ANDROID_ADB_SERVER_PORT on localhost, else
 * tcp:localhost:5037. adbkit's createClient reads no variable itself.
 */
export function resolveAdbServer(env: NodeJS.ProcessEnv, configured?: string): AdbServerAddress {
  const socket = env.ADB_SERVER_SOCKET || configured;
  if (socket) {
    const match = /^tcp:(.+):(\d{1,5})$/.exec(socket.trim());
    if (!match) throw new Error(`ADB_SERVER_SOCKET must be tcp:HOST:PORT, got ${JSON.stringify(socket)}`);
    const host = match[1]!.replace(/^\[(.*)\]$/, '$1');
    return { host, port: Number(match[2]), source: env.ADB_SERVER_SOCKET ? 'ADB_SERVER_SOCKET' : 'adbServerSocket' };
  }
  const portText = env.ANDROID_ADB_SERVER_PORT;
  if (portText) {
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`ANDROID_ADB_SERVER_PORT must be a port number, got ${JSON.stringify(portText)}`);
    }
    return { host: '127.0.0.1', port, source: 'ANDROID_ADB_SERVER_PORT' };
  }
  return { host: '127.0.0.1', port: 5037, source: 'default tcp:localhost:5037' };
}

export function describe(address: AdbServerAddress): string {
  return `tcp:${address.host}:${address.port} (${address.source})`;
}
