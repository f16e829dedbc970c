// adb's own variables, read as the adb tool reads them; the registration list hands them to the reference, the help and
// the unknown-variable check, which name no platform.
import type { OtherVariable } from '../../../config/variables.js';

export const ADB_VARIABLES = {
  ADB_SERVER_SOCKET: {
    readBy: 'agent',
    help: '`tcp:HOST:PORT` of the adb server, as the adb tool reads it; wins over `adbServerSocket` and `ANDROID_ADB_SERVER_PORT`',
  },
  ANDROID_ADB_SERVER_PORT: {
    readBy: 'agent',
    help: 'port of the adb server on localhost, as the adb tool reads it; used when neither `ADB_SERVER_SOCKET` nor `adbServerSocket` is set',
  },
} as const satisfies Record<string, OtherVariable>;

/** The settings reference's section on the adb server (docs/reference/configuration.md), markdown lines. */
export const ADB_REFERENCE: readonly string[] = [
  '## The adb server',
  '',
  'The first of these that is set decides: `ADB_SERVER_SOCKET` (`tcp:HOST:PORT`, as the adb tool reads it), the',
  '`adbServerSocket` setting, `ANDROID_ADB_SERVER_PORT` (a port on localhost), else `tcp:localhost:5037`. The agent',
  'never starts an adb server itself (adbkit would by default): under systemd the adb unit owns it, with the USB access',
  'and adb key the agent has no business holding.',
  '',
];
