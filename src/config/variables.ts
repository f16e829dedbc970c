// The variables the agent reads besides its settings' names and their envDefaults: libimobiledevice's, systemd's,
// OpenSSL's, the terminal's, and two DEVICE_AGENT_* names that are not settings (the platforms add their own). One table
// for the unknown-variable warning and the reference; a test keeps it equal to what src/ and container/ read.

export interface OtherVariable {
  /** Who reads it: the agent, or the container image's entrypoint. */
  readBy: 'agent' | 'container entrypoint';
  help: string;
}

export const otherVariables = {
  USBMUXD_SOCKET_ADDRESS: { readBy: 'agent', help: '`UNIX:/path` or `HOST:PORT` of usbmuxd, as libimobiledevice reads it; wins over `usbmuxdSocketAddress`' },
  CREDENTIALS_DIRECTORY: {
    readBy: 'agent',
    help:
      "set by systemd's `LoadCredential=`: the API key is read from its `api-key` file when neither `apiKey` nor `apiKeyFile` is set, " +
      'and `httpsProxy` from its `https-proxy` file when neither the settings file nor `DEVICE_AGENT_HTTPS_PROXY` sets it (before `https_proxy`); `httpProxy` likewise from `http-proxy`',
  },
  DEVICE_AGENT_API_KEY_SOURCE: {
    readBy: 'agent',
    help:
      "set by the package's `/usr/bin/device-agent` when it hands the key over as the `api-key` credential: the file it came from " +
      '(`/etc/device-agent/api-key`), which log lines and `doctor` name instead of the per-run copy; a name, never the key',
  },
  STATE_DIRECTORY: { readBy: 'agent', help: "set by systemd's `StateDirectory=`: the state directory when `stateDir` is unset" },
  INVOCATION_ID: {
    readBy: 'agent',
    help: "set by systemd for a unit it runs: `doctor` run so (as the service, or under `systemd-run`) opens the kernel log as the service would, and does not read the installed unit's sandbox instead",
  },
  DEVICE_AGENT_BUILD_NUMBER: {
    readBy: 'agent',
    help: "the build number reported in the Machine record (packagers set it); else the checkout's commit, else the version",
  },
  DEVICE_AGENT_START_ADB: { readBy: 'container entrypoint', help: '`1` starts an adb server inside the container before the agent' },
  SSL_CERT_FILE: { readBy: 'agent', help: "with `systemCa`, the CA bundle read before the system's usual ones, as OpenSSL's tools read it" },
  NODE_USE_ENV_PROXY: {
    readBy: 'agent',
    help: "Node's own proxy support, not needed: the agent reads the proxy settings itself (doctor warns, it costs memory)",
  },
  NODE_TLS_REJECT_UNAUTHORIZED: {
    readBy: 'agent',
    help: "Node's switch that turns certificate checks off: ignored, since the agent's requests always check; set anything but `1` and the agent warns at start and in `doctor`",
  },
  NO_COLOR: { readBy: 'agent', help: 'set and not empty: no colour in `list` and `doctor` on a terminal' },
  TERM: { readBy: 'agent', help: '`dumb`: no colour in `list` and `doctor`' },
  PATH: {
    readBy: 'agent',
    help: 'where a hub tool named without a path (`recovery.powerCycleCommand`, `charge.command`) is found, as the agent runs it; `doctor` looks there',
  },
} as const satisfies Record<string, OtherVariable>;

export type OtherVariableName = keyof typeof otherVariables;

/** What the platforms declare for the reference: their services' variables, and a section of prose each. */
export interface PlatformVariables {
  variables: Readonly<Record<string, OtherVariable>>;
  /** Markdown lines, each section ending with an empty line. */
  sections: readonly string[];
}
