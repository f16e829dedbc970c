# device-agent in a container. Build:  npm run image  (device-agent:VERSION,
# the version of package.json, with the build number), or
#   docker build -t device-agent:VERSION .
# The base is node:24-bookworm-slim pinned by digest (the tag moves with
# every Node and Debian release; a digest is one image, so a build today and
# one next year start from the same bytes): the digest of the tag's index,
# as published with Node 24.18.0. To move it, read the tag's digest now
# (`docker buildx imagetools inspect node:24-bookworm-slim`, or
# `skopeo inspect docker://node:24-bookworm-slim`), build and test with it,
# and change it here. Another base (a registry mirror of the same digest)
# with:
#   docker build --build-arg BASE_IMAGE=registry.example.com/node:24-bookworm-slim@sha256:... .
# The base must be a Debian image that already has Node 24 and npm on its
# PATH and a `node` user (any official node:24-*-slim tag). Its Node only runs
# the build: the image runs the pinned `node` devDependency (the version the
# checkout and the .deb run, its bytes checked against
# packaging/node-runtime.json by npm ci), copied over the base's, so a tag that
# moves to another Node 24 release does not change the runtime (issue 42, 9).
# Builds with docker (BuildKit or not) and podman/buildah 1.28 or later: no
# heredoc, no COPY --chmod. podman keeps HEALTHCHECK only in the docker image
# format: `podman build --format docker` (README, Container).
ARG BASE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY . .
# The same install as on a lab host: `npm ci` also builds the TypeScript
# (prepare script). The pinned Node binary is kept aside, and the build stops
# if it is not the devDependency's version; pruning then drops it with the
# compiler and the test tools.
RUN npm ci --no-audit --no-fund \
 && install -D -m 0755 node_modules/node/bin/node /opt/node/bin/node \
 && pinned="v$(node -p "require('./package.json').devDependencies.node")" \
 && got="$(/opt/node/bin/node --version)" \
 && if [ "$got" != "$pinned" ]; then echo "the pinned Node is $got, not $pinned" >&2; exit 1; fi \
 && npm prune --omit=dev --no-audit --no-fund

FROM ${BASE_IMAGE}
# The pinned Node in place of the base's: `node` on the PATH (the entrypoint,
# the healthcheck, the hub helper) is the runtime the project tests.
COPY --from=build /opt/node/bin/node /usr/local/bin/node
# Debian's adb (29.0.6 on bookworm) for DEVICE_AGENT_START_ADB=1; without
# recommends, because the udev rules it recommends belong on the host.
# uhubctl for the hub service (compose profile hub), which runs this image
# as the hub helper: the agent's own container cannot use it (no hub node,
# a read-only /sys, uid 1000). A base that has both (a local base made
# without a registry, docs/install/container.md) needs no Debian mirror.
RUN if command -v adb >/dev/null && command -v uhubctl >/dev/null; then exit 0; fi \
 && apt-get update \
 && apt-get install -y --no-install-recommends adb uhubctl \
 && rm -rf /var/lib/apt/lists/*

# The node user (uid 1000) of the base image, also in plugdev so that it can
# open USB devices that the host's udev rules give to plugdev (gid 46 on
# Debian and Ubuntu; compose's group_add covers hosts where it differs).
# ~/.android and the state directory exist already so that fresh named
# volumes mounted there take over this owner and mode.
RUN usermod -a -G plugdev node \
 && install -d -o node -g node -m 0700 /home/node/.android /var/lib/device-agent

# Only what runs: the launcher, the compiled agent, its production
# dependencies, its default settings and package.json (its version). Not the
# sources, tests, CI files or documents.
COPY --from=build /app/package.json /app/package.json
COPY --from=build /app/bin /app/bin
COPY --from=build /app/config /app/config
COPY --from=build /app/dist/src /app/dist/src
COPY --from=build /app/node_modules /app/node_modules
COPY container/entrypoint.sh /usr/local/bin/device-agent-entrypoint
# The hub helper's client, named as the package names it (doctor asks the
# helper when recovery.powerCycleCommand is a hub-request).
COPY container/hub-request /app/bin/hub-request
# `device-agent` on the PATH, for `docker exec CONTAINER device-agent doctor`
# and the other commands beside the running agent (the entrypoint would
# start a second adb server).
RUN chmod 0755 /usr/local/bin/device-agent-entrypoint /app/bin/hub-request \
 && ln -s /app/bin/device-agent.js /usr/local/bin/device-agent
# The commit the image is built from (`npm run image` passes it): the Machine
# record's buildNumber, as the Debian package has it. The image has no .git.
ARG BUILD_NUMBER=
RUN if [ -n "$BUILD_NUMBER" ]; then printf '%s\n' "$BUILD_NUMBER" >/app/build-number; fi

USER node
# NODE_OPTIONS: small V8 semi-spaces, about 40 MB less resident memory with
# 200 devices at no measured cost in time (README, Performance).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=1 \
    DEVICE_AGENT_STATE_DIR=/var/lib/device-agent \
    DEVICE_AGENT_LOG_FORMAT=json
VOLUME ["/var/lib/device-agent"]
# /healthz of the status listener, on whatever port DEVICE_AGENT_STATUS_LISTEN
# names (healthy when the listener is off: nothing to ask).
HEALTHCHECK --interval=60s --timeout=10s --start-period=2m \
  CMD ["node", "-e", "const l = process.env.DEVICE_AGENT_STATUS_LISTEN || '127.0.0.1:9317'; if (l === 'off') process.exit(0); fetch('http://127.0.0.1:' + l.slice(l.lastIndexOf(':') + 1) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1));"]
ENTRYPOINT ["/usr/local/bin/device-agent-entrypoint"]
CMD ["run"]
