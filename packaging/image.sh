#!/usr/bin/env bash
# Builds the container image tagged with the agent's version: `npm run image`
# builds device-agent:VERSION (package.json's, the same as the Debian
# package's and `device-agent --version`'s) with the first of docker and
# podman that answers (`docker info` with its daemon, `podman info`), or with
# CONTAINER_ENGINE (docker, podman, or a path), asked nothing. Arguments go to
# the engine's build (e.g. --build-arg BASE_IMAGE=...); IMAGE_NAME gives
# another name. docs/install/container.md, "Building the image".
set -euo pipefail
# Where crun looks for controllers on the cgroup v2 side of a hybrid host.
cgroup_v2=/sys/fs/cgroup/unified

# The engine to build with, on stdout; or one line on stderr saying what was
# tried, and status 1.
pick_engine() {
  if [ -n "${CONTAINER_ENGINE:-}" ]; then
    echo "$CONTAINER_ENGINE"
    return 0
  fi
  local engine why tried=()
  for engine in docker podman; do
    if ! command -v "$engine" >/dev/null; then
      tried+=("$engine is not installed")
      continue
    fi
    # docker's client without its daemon fails here ("Cannot connect to the
    # Docker daemon ..."), as does a podman whose service does not answer.
    if why=$("$engine" info 2>&1 >/dev/null); then
      echo "$engine"
      return 0
    fi
    tried+=("$engine info failed: $(printf '%s\n' "$why" | grep -v '^[[:space:]]*$' | tail -n 1)")
  done
  local IFS=';'
  echo "image: no container engine answers (${tried[*]}): install podman (apt-get install podman runc) or start docker's daemon (systemctl start docker), or name the engine with CONTAINER_ENGINE=" >&2
  return 1
}

# The flags a podman build needs on this host, one a line. podman keeps
# HEALTHCHECK only in the docker image format. crun refuses every container
# on a host whose cgroups are hybrid with a controller left on the cgroup v2
# side ("cgroups in hybrid mode not supported, drop all controllers from
# cgroupv2", its own check of /sys/fs/cgroup/unified/cgroup.controllers;
# nested VMs and containers such as CI sandboxes have it, a systemd host's
# hybrid mode does not): the build then runs with runc.
podman_flags() { # engine
  echo --format=docker
  if [ "$("$1" info --format '{{.Host.OCIRuntime.Name}}')" = crun ] && [ -n "$(cat "$cgroup_v2/cgroup.controllers" 2>/dev/null)" ]; then
    command -v runc >/dev/null || {
      echo "image: podman's crun refuses this host's hybrid cgroups (a controller on the cgroup v2 side): install runc (apt-get install runc)" >&2
      return 1
    }
    echo --runtime=runc
  fi
}

build() {
  local repo node version build_number engine lines tag flags=()
  repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  node=$repo/node_modules/node/bin/node
  [ -x "$node" ] || node=node
  version=$("$node" -p "require('$repo/package.json').version")
  build_number=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo "$version")
  if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]; then build_number+=-dirty; fi
  engine=$(pick_engine)
  # podman-docker's `docker` is podman too.
  if "$engine" --version 2>/dev/null | grep -q '^podman'; then
    lines=$(podman_flags "$engine")
    mapfile -t flags <<<"$lines"
  fi
  tag=${IMAGE_NAME:-device-agent}:$version
  echo "image: building $tag with $engine ${flags[*]}" >&2
  "$engine" build "${flags[@]}" \
    --build-arg BUILD_NUMBER="$build_number" \
    --label org.opencontainers.image.version="$version" \
    --label org.opencontainers.image.revision="$build_number" \
    -t "$tag" "$@" "$repo" >&2
  echo "$tag"
}

# Sourced (test/packaging), only the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then build "$@"; fi
