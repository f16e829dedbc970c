#!/bin/sh
# The image's entrypoint: starts device-agent; with DEVICE_AGENT_START_ADB=1
# first an adb server of this container's own, kept running as systemd's
# Restart=always would. A file of its own rather than a heredoc in the
# Dockerfile: podman and buildah before 1.33 read a heredoc as instructions.
set -eu
# `docker run IMAGE` with no command still means the daemon.
if [ $# -eq 0 ]; then
  set -- run
fi
if [ "${DEVICE_AGENT_START_ADB:-0}" = 1 ]; then
  port="${ANDROID_ADB_SERVER_PORT:-5037}"
  # Without -a the server listens on this container's loopback only, which
  # is all the agent beside it needs. Its own log lines ("adb I 11-22 ...
  # auth.cpp ...") are wrapped as JSON lines with component "adb", so that
  # everything `docker logs` shows is JSON.
  (
    trap 'exit 0' TERM INT
    while :; do
      adb -P "$port" server nodaemon 2>&1 |
        sed -u -e 's/[[:cntrl:]]/ /g' -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/.*/{"level":"info","component":"adb","msg":"&"}/' || true
      sleep 2
    done
  ) &
fi
# Logs of the daemon go to stdout with everything else; `once --dry-run`
# keeps its report on stdout and its logs apart on stderr.
if [ "$1" = run ]; then
  exec 2>&1
fi
# The V8 flags as systemd/device-agent.service gives them, before any JavaScript runs.
exec node --no-turbofan --no-maglev /app/bin/device-agent.js "$@"
