#!/bin/bash
# /usr/bin/device-agent, installed by the device-agent package: runs the
# agent on the Node.js runtime the package brings, whatever Node.js (if any)
# the system has.
#
# Every command that reads the agent's settings or state reads the
# service's. Run as root, they are run as the service runs: its user, state
# directory, environment files (agent.env and any a drop-in adds, such as a
# proxy's) and the api-key credential (systemd-run), so that they see what
# the service sees and never leave root-owned files in its state directory;
# DEVICE_AGENT_AS_ROOT=1 runs them as root instead. Run by another user
# (an operator in the group device-agent), they read the service's state
# directory and settings files with that user's rights: the group reads the
# state, and leaves a quarantine release there; the key stays root's.
set -u
lib=/usr/lib/device-agent
etc=/etc/device-agent
state=/var/lib/device-agent
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
  once | list | doctor | incidents | quarantine)
    # The unit's environment files as systemd lists them, one a line:
    # "/etc/device-agent/agent.env (ignore_errors=yes)"; agent.env when it
    # cannot say.
    env_files=$(systemctl show -P EnvironmentFiles device-agent.service 2>/dev/null || true)
    [ -n "$env_files" ] || env_files="$etc/agent.env (ignore_errors=yes)"
    if [ "$(id -u)" = 0 ] && [ -d /run/systemd/system ] && [ -z "${DEVICE_AGENT_AS_ROOT:-}" ]; then
      # The service's identity and state directory as its unit and drop-ins
      # set them (the package's: the user device-agent, 0750, umask 0027),
      # so that its state directory keeps its owner and modes; these values
      # if the unit is not there to ask.
      props=(-p User=device-agent -p Group=device-agent -p StateDirectory=device-agent -p StateDirectoryMode=0750 -p UMask=0027)
      unit=$(systemctl show -p LoadState -p DynamicUser -p User -p Group -p StateDirectory -p StateDirectoryMode -p UMask device-agent.service 2>/dev/null)
      case "$unit" in
        *LoadState=loaded*)
          while read -r line; do
            case "$line" in LoadState=* | *=) ;; *) props+=(-p "$line") ;; esac
          done <<<"$unit"
          ;;
      esac
      # Secrets never go into the transient unit's environment, which any
      # user may read over D-Bus (systemd.exec, "Environment="): they go as
      # credentials, which only the unit's user reads. A secret the caller
      # gave in its environment (DEVICE_AGENT_API_KEY, a proxy URL with a
      # password) is written to a root-only file under /run, handed over with
      # LoadCredential= (SetCredential= would show it in the unit's
      # properties too) and removed when the command ends.
      secrets=
      given_credential() { # NAME VALUE
        if [ -z "$secrets" ]; then
          secrets=$(umask 077 && mktemp -d /run/device-agent-secrets.XXXXXX) || exit 2
          trap 'rm -rf "$secrets"' EXIT
        fi
        (umask 077 && printf '%s\n' "$2" >"$secrets/$1") || exit 2
        props+=(-p "LoadCredential=$1:$secrets/$1")
      }
      with_password() { case "$1" in *@*) return 0 ;; *) return 1 ;; esac; } # user info: a password may be there
      # The key's source, named to the agent (DEVICE_AGENT_API_KEY_SOURCE)
      # as the operator knows it, not as the per-run copy under /run.
      key_source=
      if [ -n "${DEVICE_AGENT_API_KEY:-}" ]; then
        given_credential api-key "$DEVICE_AGENT_API_KEY"
        key_source=DEVICE_AGENT_API_KEY
      elif [ -e $etc/api-key ]; then
        # The same credential as device-agent.service: the plain file, or the
        # encrypted one of the systemd-creds set-up (docs/install/package.md).
        props+=(-p LoadCredential=api-key:$etc/api-key)
        key_source=$etc/api-key
      elif [ -e /etc/credstore.encrypted/device-agent.api-key ]; then
        props+=(-p LoadCredentialEncrypted=api-key:/etc/credstore.encrypted/device-agent.api-key)
        key_source=/etc/credstore.encrypted/device-agent.api-key
      fi
      # A proxy: the agent reads DEVICE_AGENT_HTTPS_PROXY, then the
      # https-proxy credential, then https_proxy, then HTTPS_PROXY (the same
      # for http). The one of these it would use, when it holds a password,
      # goes as the credential (a DEVICE_AGENT_ one then yields to a proxy of
      # the settings file, as credentials do); else the file the Ansible
      # role's drop-in hands to the service (docs/install/fleet.md).
      for cred in https-proxy http-proxy; do
        if [ "$cred" = https-proxy ]; then
          own=${DEVICE_AGENT_HTTPS_PROXY:-} host=${https_proxy:-${HTTPS_PROXY:-}}
        else
          own=${DEVICE_AGENT_HTTP_PROXY:-} host=${http_proxy:-${HTTP_PROXY:-}}
        fi
        if with_password "$own" || { [ -z "$own" ] && [ ! -e "/etc/device-agent/$cred" ] && with_password "$host"; }; then
          given_credential "$cred" "${own:-$host}"
        elif [ -e "/etc/device-agent/$cred" ]; then
          props+=(-p "LoadCredential=$cred:/etc/device-agent/$cred")
        fi
      done
      # The key and every proxy variable with a password stay out of the
      # environment: the one the agent would read is a credential now, the
      # others it would not read. The key's source is this script's word.
      hidden=' DEVICE_AGENT_API_KEY DEVICE_AGENT_API_KEY_SOURCE '
      [ -z "$key_source" ] || props+=("--setenv=DEVICE_AGENT_API_KEY_SOURCE=$key_source")
      for name in DEVICE_AGENT_HTTPS_PROXY https_proxy HTTPS_PROXY DEVICE_AGENT_HTTP_PROXY http_proxy HTTP_PROXY; do
        with_password "${!name:-}" && hidden+="$name "
      done
      while read -r line; do
        case "$line" in
          *' (ignore_errors=yes)') props+=(-p "EnvironmentFile=-${line% (ignore_errors=yes)}") ;;
          *' (ignore_errors=no)') props+=(-p "EnvironmentFile=${line% (ignore_errors=no)}") ;;
        esac
      done <<<"$env_files"
      # doctor opens the kernel log (the USB layer's) with the service's
      # capabilities: CAP_SYSLOG, which kernel.dmesg_restrict=1 asks for.
      # What else of the unit hides /dev/kmsg, doctor reads from the unit.
      if [ "$1" = doctor ]; then
        caps=$(systemctl show -P AmbientCapabilities device-agent.service 2>/dev/null || true)
        [ -z "$caps" ] || props+=(-p "AmbientCapabilities=$caps")
      fi
      # The caller's other settings; systemd-run copies each named variable's
      # value (those files still win over them, as EnvironmentFile= does over
      # Environment=).
      while read -r name; do
        case "$hidden" in *" $name "*) ;; *) props+=("--setenv=$name") ;; esac
      done < <(env | sed -n 's/^\(DEVICE_AGENT_[A-Z0-9_]*\|ADB_SERVER_SOCKET\|ANDROID_ADB_SERVER_PORT\|USBMUXD_SOCKET_ADDRESS\|NO_COLOR\|[Hh][Tt][Tt][Pp][Ss]\?_[Pp][Rr][Oo][Xx][Yy]\|[Nn][Oo]_[Pp][Rr][Oo][Xx][Yy]\)=.*/\1/p')
      # Not exec: the secrets' files are removed (EXIT trap) once it ends.
      systemd-run --quiet --wait --pipe --collect "${props[@]}" /usr/bin/device-agent "$@"
      exit
    fi
    # Not as the service: still its state directory, unless one is named,
    # and the settings of its environment files this user may read
    # (agent.env; a proxy's is root's), NAME=VALUE lines as systemd reads
    # them, a value in quotes or not; they win over the caller's, as for the
    # service.
    [ -n "${STATE_DIRECTORY:-}" ] || [ ! -d $state ] || export STATE_DIRECTORY=$state
    while read -r line; do
      file=${line% (ignore_errors=*)}
      [ -r "$file" ] || continue
      while IFS= read -r setting || [ -n "$setting" ]; do
        name=${setting%%=*} value=${setting#*=}
        [[ "$setting" = *=* && "$name" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
        case "$value" in \"*\" | \'*\') value=${value:1:${#value}-2} ;; esac
        export "$name=$value"
      done <"$file"
    done <<<"$env_files"
    ;;
esac
# The operator's settings file, when there is one and the command names
# none: the service (run) and the commands by hand read the same settings.
config=()
case "${1:-}" in
  run | once | list | doctor | incidents | quarantine)
    if [ -f $etc/config.json ]; then
      given=
      for arg in "$@"; do case "$arg" in --config | --config=*) given=1 ;; esac; done
      [ -n "$given" ] || config=(--config $etc/config.json)
    fi
    ;;
esac
# DEVICE_AGENT_AS_ROOT is this wrapper's: the agent has no such setting and would warn that it ignores it.
unset DEVICE_AGENT_AS_ROOT
exec "$node" --max-semi-space-size=1 --no-turbofan --no-maglev "$lib/bin/device-agent.js" "$@" "${config[@]}"
