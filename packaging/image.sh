#!/usr/bin/env bash
# Builds the container image tagged with the agent's version: `npm run image`
# builds device-agent:VERSION (package.json's, the same as the Debian
# package's and `device-agent --version`'s) with docker, else podman.
# Arguments go to the engine's build (e.g. --build-arg BASE_IMAGE=...);
# CONTAINER_ENGINE=podman picks the engine, IMAGE_NAME another name.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
node=$repo/node_modules/node/bin/node
[ -x "$node" ] || node=node
version=$("$node" -p "require('$repo/package.json').version")
build_number=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo "$version")
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]; then build_number+=-dirty; fi
engine=${CONTAINER_ENGINE:-$(command -v docker || command -v podman || true)}
[ -n "$engine" ] || { echo "image: neither docker nor podman is installed" >&2; exit 1; }
format=()
# podman keeps HEALTHCHECK only in the docker image format.
[ "$(basename "$engine")" = podman ] && format=(--format docker)
tag=${IMAGE_NAME:-device-agent}:$version

"$engine" build "${format[@]}" \
  --build-arg BUILD_NUMBER="$build_number" \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.revision="$build_number" \
  -t "$tag" "$@" "$repo" >&2
echo "$tag"
