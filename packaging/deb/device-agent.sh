#!/bin/bash
# /usr/bin/device-agent, installed by the device-agent package: runs the
# agent on the Node.js runtime the package brings, whatever Node.js (if any)
# the system has.
#
# Run as root, `once`, `list` and `doctor` are run as the service runs:
# its dynamic user, state directory, environment files (agent.env and any
# a drop-in adds, such as a proxy's) and the api-key credential
# (systemd-run), so that they see what the service sees and never leave
# root-owned files in its state directory. DEVICE_AGENT_AS_ROOT=1 runs them
# as root instead.
set -u
lib=/usr/lib/device-agent
node=$lib/node/bin/node
arch=@ARCH@

if [ ! -x "$node" ]; then
  echo "device-agent: its Node.js runtime $node is missing; reinstall the package: apt-get install --reinstall device-agent" >&2
  exit 2
fi
# A package of another architecture installed by force, or a damaged file:
# say so, rather than leave the shell's "Exec format error".
if ! problem=$("$node" --version 2>&1); then
  echo "device-agent: its Node.js runtime $node does not run on this host ($(uname -m)): $problem" >&2
  echo "  This is the $arch package; install the one built for $(dpkg --print-architecture 2>/dev/null || uname -m)." >&2
  exit 2
fi

case "${1:-}" in
  once | list | doctor)
    if [ "$(id -u)" = 0 ] && [ -d /run/systemd/system ] && [ -z "${DEVICE_AGENT_AS_ROOT:-}" ]; then
      # User=device-agent: the uid of the running service (dynamic users of
      # one name share it), so its state directory keeps its owner.
      props=(-p DynamicUser=yes -p User=device-agent -p StateDirectory=device-agent -p StateDirectoryMode=0700 -p UMask=0077)
      # The same credential as device-agent.service: the plain file, or the
      # encrypted one of the systemd-creds set-up (docs/install/package.md).
      if [ -e /etc/device-agent/api-key ]; then
        props+=(-p LoadCredential=api-key:/etc/device-agent/api-key)
      elif [ -e /etc/credstore.encrypted/device-agent.api-key ]; then
        props+=(-p LoadCredentialEncrypted=api-key:/etc/credstore.encrypted/device-agent.api-key)
      fi
      # The proxy with its password, as the Ansible role's drop-in hands it
      # to the service (docs/install/fleet.md).
      [ -e /etc/device-agent/https-proxy ] && props+=(-p LoadCredential=https-proxy:/etc/device-agent/https-proxy)
      # The unit's environment files as systemd lists them, one a line:
      # "/etc/device-agent/agent.env (ignore_errors=yes)".
      files=0
      while read -r line; do
        case "$line" in
          *' (ignore_errors=yes)') props+=(-p "EnvironmentFile=-${line% (ignore_errors=yes)}") && files=$((files + 1)) ;;
          *' (ignore_errors=no)') props+=(-p "EnvironmentFile=${line% (ignore_errors=no)}") && files=$((files + 1)) ;;
        esac
      done < <(systemctl show -P EnvironmentFiles device-agent.service 2>/dev/null)
      [ "$files" -gt 0 ] || props+=(-p EnvironmentFile=-/etc/device-agent/agent.env)
      # The caller's settings win over those files, as they would for a run
      # by hand; systemd-run copies each named variable's value.
      while read -r name; do
        props+=("--setenv=$name")
      done < <(env | sed -n 's/^\(DEVICE_AGENT_[A-Z0-9_]*\|ADB_SERVER_SOCKET\|ANDROID_ADB_SERVER_PORT\|USBMUXD_SOCKET_ADDRESS\|NO_COLOR\|[Hh][Tt][Tt][Pp][Ss]\?_[Pp][Rr][Oo][Xx][Yy]\|[Nn][Oo]_[Pp][Rr][Oo][Xx][Yy]\)=.*/\1/p')
      exec systemd-run --quiet --wait --pipe --collect "${props[@]}" /usr/bin/device-agent "$@"
    fi
    ;;
esac
# The operator's settings file, when there is one and the command names
# none: the service (run) and the commands by hand read the same settings.
config=()
case "${1:-}" in
  run | once | list | doctor)
    if [ -f /etc/device-agent/config.json ]; then
      given=
      for arg in "$@"; do case "$arg" in --config | --config=*) given=1 ;; esac; done
      [ -n "$given" ] || config=(--config /etc/device-agent/config.json)
    fi
    ;;
esac
exec "$node" --max-semi-space-size=1 "$lib/bin/device-agent.js" "$@" "${config[@]}"
