#!/usr/bin/env bash
# The image built by a real engine and run as the container guide says: the
# guide's base for a host without a registry (no registry is reachable here),
# made by its step 1 as it stands (debootstrap with adb and uhubctl, the Node
# 24 binary of the npm `node` package, npm, a `node` user), then its step 2,
# `npm run image`, which must find podman (this host has docker's client and
# no daemon) and build without reaching Debian's mirror; then both compose
# profiles run as their podman flags against the device simulator and the
# cloud double (test/deploy/bed.ts, on this host). Checks:
#   the report is delivered; the root is read-only with no capability but
#   CAP_SYSLOG, with which the agent holds the host's /dev/kmsg (passed in
#   read-only, the USB layer's kernel log) open; the healthcheck works;
#   `podman exec CONTAINER device-agent doctor` reads the agent's node id,
#   `list` there shows the running agent's view, and `once` there sends
#   nothing beside it;
#   the node id and the adb key survive a new container;
#   every log line is JSON; a phone adb drops while its serial stays on a
#   USB port is UNAVAILABLE, not UNPLUGGED; stop is clean; the image holds
#   only what runs.
# Needs root, podman, runc and debootstrap (.ci/run installs them) and
# `npm test` (or `npm run build`) run before, for dist/.
#
# Quirks of these build machines, kept here and not in the product:
# - runc, not crun, for the containers this check runs: crun refuses the
#   hybrid cgroup setup of these hosts (docs/install/container.md, "Building
#   the image"; the build is npm run image's to handle, and does);
# - containers keep nofile/nproc below this process's hard limits (a
#   containers.conf of this run, and --ulimit): podman run asks for more, and
#   root here cannot raise its limits (no CAP_SYS_RESOURCE), so runc fails
#   with EPERM; podman build asks for none and needs no flag;
# - the phones are simulated over TCP, so both profiles run with the host's
#   network here; the usb profile's USB flags are still given.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/deploy/lib.sh
. "$here/lib.sh"
version=$("$node" -p "require('$repo/package.json').version")
base_image=localhost/device-agent-base:bookworm
run_id=$$
names=()
volumes=()

fail() {
  echo "FAIL: $*" >&2
  for n in "${names[@]}"; do podman logs --tail 40 "$n" >&2 2>&1 || true; done
  exit 1
}
cleanup() {
  for n in "${names[@]}"; do podman rm -f -t 0 "$n" >/dev/null 2>&1 || true; done
  for v in "${volumes[@]}"; do podman volume rm -f "$v" >/dev/null 2>&1 || true; done
  [ -n "${bed_pid:-}" ] && kill "$bed_pid" 2>/dev/null || true
  [ -n "${usb_tree:-}" ] && rm -rf "$usb_tree"
  [ -n "${adb_pid:-}" ] && kill "$adb_pid" 2>/dev/null || true
  wait 2>/dev/null || true
}
trap cleanup EXIT

# DEPLOY_PART: all (the default), or image, which ends after the build.
part=${DEPLOY_PART:-all}
case "$part" in all | image) ;; *) fail "DEPLOY_PART=$part: all or image" ;; esac
[ "$(id -u)" = 0 ] || fail "needs root"
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install podman runc debootstrap)"; done
[ -f "$repo/dist/test/deploy/bed.js" ] || fail "dist/ is missing: run npm test or npm run build first"

mkdir -p "$work"
conf=$work/containers.conf
# Well below this process's hard limits: runc failed with EPERM at equal ones,
# and for nproc at half of them (48182) too; 4096 processes is plenty here.
nofile=$(($(ulimit -Hn) / 2))
nproc=$(($(ulimit -Hu) / 2))
[ "$nofile" -le 65536 ] || nofile=65536
[ "$nproc" -le 4096 ] || nproc=4096
cat >"$conf" <<EOF
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF=$conf
# The same limits as flags, for the runs that pass them explicitly.
limits=(--ulimit "nofile=$nofile:$nofile" --ulimit "nproc=$nproc:$nproc")

# ---- the local base image ----------------------------------------------------
# The container guide's base for a host without a registry, made as its step 1
# says (debootstrap with adb and uhubctl, the pinned Node, npm, a node user),
# once per machine: podman keeps it.
guide_step() { "$node" "$repo/dist/test/deploy/readme-steps.js" "$repo/docs/install/container.md" '### Without a container registry' "$1"; }
if ! podman image exists "$base_image"; then
  say "the local base, as the container guide makes it (Without a container registry, step 1)"
  (cd "$repo" && bash -euo pipefail -c "$(guide_step 1)") >"$work/container-base.log" 2>&1 || fail "the guide's step 1 did not make the base: $(tail -5 "$work/container-base.log")"
  podman image exists "$base_image" || fail "the guide's step 1 made no $base_image"
fi

say "npm run image as the guide's step 2 says: the engine that answers, the Dockerfile as it is, no Debian mirror"
# Without this check's containers.conf: podman's own runtime (crun where it
# is installed, which refuses these hosts' cgroups) is image.sh's to handle.
image=$(cd "$repo" && env -u CONTAINERS_CONF bash -euo pipefail -c "$(guide_step 2)" 2>"$work/build.log" | tail -n 1) ||
  fail "the image did not build: $(tail -30 "$work/build.log")"
engine_line=$(grep -m1 '^image: building' "$work/build.log" || true)
case "$engine_line" in *" with podman "*) ;; *) fail "npm run image did not build with podman: ${engine_line:-$(tail -5 "$work/build.log")}" ;; esac
# The base has adb and uhubctl: the Dockerfile installs nothing from Debian.
has 'deb\.debian\.org' <"$work/build.log" && fail "the build reached Debian's mirror: $(grep -m3 'deb\.debian\.org' "$work/build.log")"
[ "$image" = "device-agent:$version" ] || fail "the image is tagged $image, not with the version $version"
got=$(podman run --rm "${limits[@]}" "$image" --version | head -1)
[ "$got" = "device-agent $version" ] || fail "the image tagged $version says '$got'"
revision=$(podman image inspect -f '{{ index .Labels "org.opencontainers.image.revision" }}' "$image")
got=$(podman run --rm "${limits[@]}" --entrypoint cat "$image" /app/build-number)
[ -n "$revision" ] && [ "$got" = "$revision" ] || fail "the image's build number '$got' is not its revision label '$revision'"
pass "built $image, whose agent says it is $version, build $got (${engine_line#image: })"
# DEPLOY_PART=image: only the build, whose layers podman keeps, so that the
# whole check later in the same run finds them made (test/deploy/prepare.sh).
[ "$part" = all ] || exit 0

say "the image runs the pinned Node (the node devDependency), not the base's"
pinned=v$("$node" -p "require('$repo/package.json').devDependencies.node")
got=$(podman run --rm "${limits[@]}" --entrypoint node "$image" --version)
[ "$got" = "$pinned" ] || fail "the image runs Node $got, not the pinned $pinned"
got=$(podman run --rm "${limits[@]}" --entrypoint /bin/sh "$image" -c 'command -v node')
[ "$got" = /usr/local/bin/node ] || fail "node on the image's PATH is $got, not /usr/local/bin/node"
pass "node --version in the image: $pinned"

say "the image holds only what runs"
listing=$(podman run --rm "${limits[@]}" --entrypoint /bin/ls "$image" /app /app/dist | tr '\n' ' ')
[ "$listing" = "/app: bin build-number config dist node_modules package.json  /app/dist: src " ] || fail "unexpected files in /app: $listing"
podman run --rm "${limits[@]}" --entrypoint /bin/sh "$image" -c 'test ! -e /app/node_modules/typescript && test ! -e /app/node_modules/vitest' || fail "dev packages in the image"
podman image inspect "$image" | has '"Healthcheck"' || fail "the image has no HEALTHCHECK (built without --format docker?)"
pass "$listing"

say "--log-format pretty prints readable lines from the image (pino-pretty in it)"
# Issue 61, 2: a devDependency, `npm prune --omit=dev` dropped it and the flag
# printed JSON. No adb server here (no network): list says so in a WARN line.
podman run --rm "${limits[@]}" --network none "$image" list --log-format pretty >/dev/null 2>"$work/pretty.err" || true
has '^\[[0-9]\{4\}-[0-9]\{2\}-[0-9]\{2\} [0-9:.]* [+-][0-9]\{4\}\] \(DEBUG\|INFO\|WARN\|ERROR\):' <"$work/pretty.err" ||
  fail "no readable log line from the image's device-agent list --log-format pretty: $(head -3 "$work/pretty.err")"
has '^{' <"$work/pretty.err" && fail "JSON lines from --log-format pretty: $(grep -m2 '^{' "$work/pretty.err")"
pass "$(grep -m1 '^\[' "$work/pretty.err" | cut -c1-100)"

# ---- the test bed on this host -----------------------------------------------
# Free ports below the kernel's ephemeral range: a port the kernel handed
# out (listen on 0) goes back into that range, and the containers share the
# host's network, so an outgoing connection (adb to a phone) could take it
# before the agent listens on it (EADDRINUSE, seen in CI). Every port this
# check needs, drawn at once by test/sim/free-port.ts's freePort from the
# slice it keeps for processes other than the test workers: the soak
# tier's workers, beside this check in CI, draw from slices of their own
# (this check drew from the whole range before, theirs included), and one
# process hands out no port twice (separate draws could).
ports=$("$node" --input-type=module -e "
  import { freePort } from '$repo/dist/test/sim/adb-server.js';
  const ports = [];
  for (let i = 0; i < 8; i++) ports.push(await freePort());
  console.log(ports.join(' '));") || fail "no free ports below the ephemeral range"
read -r cloud_port control_port adb_port status_port host_adb_port host_status_port hub_status_port relay_port <<<"$ports"
# Not drawn again by the beds this check starts, which draw their phones' ports from the same slice: a phone took the
# control port a bed was about to listen on once, between two beds (CI at 51586f49).
export DEVICE_AGENT_TEST_RESERVED_PORTS=${ports// /,}
# lib.sh's bed and wait_put: the bed runs here.
bed_port=$control_port
bed_node() { "$node" -e "$1"; }
now_ms() { "$node" -e 'console.log(Date.now())'; }
# The /metrics of the agent listening on status_port (the containers share the host's network).
agent_metrics() { "$node" -e "fetch('http://127.0.0.1:$status_port/metrics').then((r) => r.text()).then((t) => process.stdout.write(t), () => process.exit(2))"; }
start_bed() { # adb port [more flags of the bed]
  [ -n "${bed_pid:-}" ] && kill "$bed_pid" 2>/dev/null && wait "$bed_pid" 2>/dev/null || true
  "$node" "$repo/dist/test/deploy/bed.js" --adb-port "$1" --cloud-port "$cloud_port" --control-port "$control_port" --serials PODMAN01,PODMAN02 "${@:2}" >"$work/bed.log" 2>&1 &
  bed_pid=$!
}

# The key as a file, bind-mounted read-only as compose's file secrets are
# (podman 4.3's --secret cannot mount into a read-only root). uid 1000 reads it.
key_file=$work/api-key
install -m 0600 -o 1000 /dev/null "$key_file"
printf '%s\n' test-api-key-3f9a1c7e5b2d >"$key_file"
env_file=$work/agent.env
cat >"$env_file" <<EOF
DEVICE_AGENT_BASE_URL=http://127.0.0.1:$cloud_port/v1
DEVICE_AGENT_USERNAME=agent@example.test
DEVICE_AGENT_SCHEDULE=*/10 * * * * *
DEVICE_AGENT_JITTER_SECONDS=0
EOF

# The README's podman flags for each compose profile (Container section),
# with the host's network here because the phones are simulated over TCP.
common=("${limits[@]}" --health-interval disable --init --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges
  --env-file "$env_file" -v "$key_file:/run/secrets/api-key:ro" -e DEVICE_AGENT_API_KEY_FILE=/run/secrets/api-key
  --stop-timeout 20 --network host --device /dev/kmsg:/dev/kmsg:r --cap-add SYSLOG)
# No USB bus on a build machine: the bind mount is given where there is one.
usb=(--device-cgroup-rule 'c 189:* rmw' --group-add "$(getent group plugdev | cut -d: -f3 || echo 46)")
[ -d /dev/bus/usb ] && usb+=(-v /dev/bus/usb:/dev/bus/usb)
# No USB bus on a build machine, so no /sys/bus/usb/devices either: a tree
# laid out as it is (a port's directory with its serial) stands in, written
# here and read by the agent as uid 1000 through a read-only bind mount
# (usb.sysfsRoot), for the USB layer's phones off adb.
usb_tree=$work/usb-sysfs-$run_id
rm -rf "$usb_tree"
mkdir -p "$usb_tree"
run_usb() { # name adb_port [podman run flags...]
  names+=("$1")
  podman run -d --name "$1" "${common[@]}" \
    -e DEVICE_AGENT_START_ADB=1 -e ANDROID_ADB_SERVER_PORT="$2" -e DEVICE_AGENT_STATUS_LISTEN=127.0.0.1:"$status_port" \
    "${usb[@]}" "${@:3}" -v "da-adb-keys-$run_id:/home/node/.android" -v "da-state-$run_id:/var/lib/device-agent" \
    "$image" >/dev/null
}
volumes+=("da-adb-keys-$run_id" "da-state-$run_id" "da-state-host-$run_id")

check_logs_json() {
  local bad
  bad=$(podman logs "$1" 2>&1 | "$node" -e "
    let t = ''; process.stdin.on('data', (c) => (t += c)).on('end', () => {
      const bad = t.split('\n').filter((l) => l.trim() !== '').filter((l) => { try { JSON.parse(l); return false; } catch { return true; } });
      process.stdout.write(bad.slice(0, 5).join('\n'));
    });")
  [ -z "$bad" ] || fail "log lines of $1 that are not JSON: $bad"
}

# ---- profile usb: adb inside the container -------------------------------------
say "profile usb: adb server inside the container"
# The agent reaches its adb server through the bed's relay, which gives
# PODMAN02's line of `adb devices -l` the usb path of port 1-1.3, as a phone
# on that port has it: the phones reach adb over TCP, and the USB layer
# places a phone on a port only by that path, which a phone cannot forge
# (docs/design/trust.md), never by a serial sysfs shows (below).
start_bed "$adb_port" --adb-relay-port "$relay_port" --usb-paths PODMAN02=1-1.3
t0=$(now_ms)
run_usb "da-usb-$run_id" "$adb_port" -v "$usb_tree:/usb-sysfs:ro" -e DEVICE_AGENT_USB_SYSFS_ROOT=/usb-sysfs -e DEVICE_AGENT_ADB_SERVER_SOCKET=tcp:127.0.0.1:"$relay_port"
first=$(wait_put "$t0" "status(p, 'PODMAN01') === 'AVAILABLE' && status(p, 'PODMAN02') === 'AVAILABLE'" 120) || fail "no report with both phones (bed: $(tail -3 "$work/bed.log"))"
node_id=$(printf '%s' "$first" | node_id_of)
pass "report delivered by node $node_id"

[ "$(podman inspect -f '{{ .HostConfig.ReadonlyRootfs }}' "da-usb-$run_id")" = true ] || fail "the root is not read-only"
podman exec "da-usb-$run_id" sh -c 'touch /app/x' 2>/dev/null && fail "the root is writable"
capeff=$(podman exec "da-usb-$run_id" sh -c "grep CapEff /proc/1/status | cut -f2")
# CAP_SYSLOG (bit 34) alone, for the kernel log where kernel.dmesg_restrict=1.
[ "$capeff" = 0000000400000000 ] || fail "the container has capabilities other than CAP_SYSLOG: $capeff"
pass "read-only root, no capability but CAP_SYSLOG"

# The USB layer's kernel log: the agent (uid 1000) holds /dev/kmsg open and
# says nothing of not reading it (podman gives an added capability to the
# non-root user as an ambient one; Docker does not, docs/install/container.md).
podman exec "da-usb-$run_id" sh -c 'for f in /proc/[0-9]*/fd/*; do [ "$(readlink "$f")" = /dev/kmsg ] && echo "$f"; done; true' >"$work/container-kmsg-fds"
[ -s "$work/container-kmsg-fds" ] || fail "no process of the container holds /dev/kmsg open: $(podman logs "da-usb-$run_id" 2>&1 | grep -i "kernel's messages" | head -3)"
podman logs "da-usb-$run_id" 2>&1 | has "cannot read the kernel's messages\\|reading the kernel's messages from" && fail "the agent says it cannot read the kernel's messages: $(podman logs "da-usb-$run_id" 2>&1 | grep -i "kernel's messages" | head -3)"
pass "the agent holds /dev/kmsg open ($(head -n 1 "$work/container-kmsg-fds")) as uid 1000 with CAP_SYSLOG, no read error said"

for _ in $(seq 1 30); do podman healthcheck run "da-usb-$run_id" >/dev/null 2>&1 && break; sleep 1; done
podman healthcheck run "da-usb-$run_id" >/dev/null 2>&1 || fail "the healthcheck fails on a healthy agent"
pass "healthcheck"

# Issue 70, 6: `podman exec CONTAINER device-agent doctor` gave 127 (not on
# the image's PATH). As the guide says it, beside the running agent, with its
# environment and its state volume: the node id the reports carry.
podman exec "da-usb-$run_id" device-agent doctor >"$work/usb-doctor.out" 2>&1 ||
  fail "podman exec ... device-agent doctor ended with status $?: $(grep -v '^\[ OK \]' "$work/usb-doctor.out" | head -6)"
# Its checks' own words are in --json (the text sums up what passed by id).
podman exec "da-usb-$run_id" device-agent doctor --json >"$work/usb-doctor.json" 2>&1 || true
has "\"finding\": \"node id $node_id " <"$work/usb-doctor.json" || fail "doctor in the container did not read the agent's node id $node_id: $(grep -i 'node id' "$work/usb-doctor.json")"
pass "podman exec da-usb device-agent doctor: $(tail -n 1 "$work/usb-doctor.out")"
# `once` through the same door, beside the running agent on the same state volume: it sends nothing, exit 1, and says
# why in one line (README, exit codes): the agent alone tells the cloud of this host's phones.
once_rc=0
podman exec "da-usb-$run_id" device-agent once >"$work/usb-once.out" 2>&1 || once_rc=$?
[ "$once_rc" = 1 ] || fail "podman exec ... device-agent once beside the agent ended with status $once_rc: $(tail -n 3 "$work/usb-once.out")"
has "reports this host's phones from this state directory" <"$work/usb-once.out" ||
  fail "once beside the agent did not say why it sent nothing: $(tail -n 3 "$work/usb-once.out")"
# What the line says to do instead, in a container: a SIGHUP to it (the agent is its pid 1) is a report now.
hup_at=$(now_ms)
podman kill --signal HUP "da-usb-$run_id" >/dev/null || fail "podman kill --signal HUP failed"
wait_put "$hup_at" "true" 60 >/dev/null || fail "no report after podman kill --signal HUP: $(podman logs "da-usb-$run_id" 2>&1 | grep -i 'SIGHUP' | tail -2)"
podman logs "da-usb-$run_id" 2>&1 | has 'SIGHUP: a full inventory and report now' || fail "the agent did not take podman kill --signal HUP as SIGHUP"
pass "podman exec da-usb device-agent once: nothing sent beside the running agent, exit 1, one line; podman kill --signal HUP reports"
# `list` there shows the phones as the running agent knows them (its status endpoint), not a second reading.
podman exec "da-usb-$run_id" device-agent list --json >"$work/usb-list.json" 2>"$work/usb-list.err" ||
  fail "podman exec ... device-agent list --json ended with status $?: $(tail -n 3 "$work/usb-list.err")"
has "as the agent running here" <"$work/usb-list.err" || fail "list in the container read the phones itself, not the running agent: $(tail -n 3 "$work/usb-list.err")"
"$node" -e 'const rows = JSON.parse(require("fs").readFileSync(0, "utf8")); const udids = rows.map((r) => r.udid).sort().join(); if (udids !== "PODMAN01,PODMAN02") { console.error(udids); process.exit(1); }' <"$work/usb-list.json" ||
  fail "list in the container did not show PODMAN01 and PODMAN02"
pass "podman exec da-usb device-agent list --json: both phones, as the running agent knows them"

adb_key=$(podman exec "da-usb-$run_id" cat /home/node/.android/adbkey.pub) || fail "no adb key in the volume"
podman logs "da-usb-$run_id" 2>&1 | has '"component":"adb"' || fail "no adb log line (wrapped as JSON) in the container's output"
check_logs_json "da-usb-$run_id"
pass "every log line is JSON, adb's included"

say "a phone adb stops listing while its serial stays on a USB port: UNAVAILABLE and named, not UNPLUGGED, from the image"
# USB debugging turned off (an OS update does it): adb, inside the
# container, loses the phone; the kernel keeps it on its port, where adb's
# usb path (the bed's relay) placed it.
mkdir -p "$usb_tree/1-1.3"
echo PODMAN02 >"$usb_tree/1-1.3/serial"
wait_placed PODMAN02 1-1.3 agent_metrics now_ms 60 ||
  fail "the agent did not place PODMAN02 on port 1-1.3 by adb's usb path: $(agent_metrics | grep 'device_agent_device_info{.*PODMAN02' || echo 'not on /metrics')"
off_at=$(now_ms)
bed POST '/disconnect?serials=PODMAN02' >/dev/null || fail "the bed could not have adb drop PODMAN02"
wait_put "$off_at" "status(p, 'PODMAN02') === 'UNAVAILABLE' && /on USB port 1-1\\.3 \\(the kernel enumerated it\\) but adb does not list it/.test(message(p, 'PODMAN02'))" 60 >/dev/null ||
  fail "PODMAN02, off adb and on port 1-1.3, was not reported UNAVAILABLE with its port: $(podman logs "da-usb-$run_id" 2>&1 | grep -i 'PODMAN02\|sysfs' | tail -3)"
# The time first: a report that read sysfs after the rm can reach the bed
# before a node started after it says the time, under CI's load (CI40: that
# UNPLUGGED went out before gone_at, and was not waited for).
gone_at=$(now_ms)
rm -r "$usb_tree/1-1.3"
wait_put "$gone_at" "status(p, 'PODMAN02') === 'UNPLUGGED'" 60 >/dev/null || fail "PODMAN02 was not reported UNPLUGGED once off its port"
said=$(never_reported PODMAN02 UNPLUGGED "$off_at" "$gone_at") || fail "PODMAN02 while its serial was on port 1-1.3: $said"
pass "PODMAN02 off adb on port 1-1.3: UNAVAILABLE with its port, never UNPLUGGED there; UNPLUGGED once off the port"

t=$SECONDS
podman stop -t 20 "da-usb-$run_id" >/dev/null
[ $((SECONDS - t)) -lt 20 ] || fail "stop took $((SECONDS - t)) s"
[ "$(podman inspect -f '{{ .State.ExitCode }}' "da-usb-$run_id")" = 0 ] || fail "exit code $(podman inspect -f '{{ .State.ExitCode }}' "da-usb-$run_id") on stop"
podman logs "da-usb-$run_id" 2>&1 | has 'device-agent stopped' || fail "no clean-stop line"
pass "stopped cleanly in $((SECONDS - t)) s"

say "a new container keeps the node id and the adb key (volumes)"
podman rm "da-usb-$run_id" >/dev/null
# The new container's adb server may take a minute to bind the port the first one had (CI: "could not install
# *smartsocket* listener: Address already in use" for 40 s after the first was removed, cause not found); the bed's
# default wait for adb (60 s) then ended the bed, and its cloud with it. The agent carries PODMAN01 UNAVAILABLE meanwhile.
start_bed "$adb_port" --adb-wait-seconds 240
t0=$(now_ms)
run_usb "da-usb2-$run_id" "$adb_port"
wait_put "$t0" "p.nodeId === '$node_id' && status(p, 'PODMAN01') === 'AVAILABLE'" 240 >/dev/null || fail "the new container reported another node id, or nothing"
[ "$(podman exec "da-usb2-$run_id" cat /home/node/.android/adbkey.pub)" = "$adb_key" ] || fail "the adb key changed"
podman stop -t 20 "da-usb2-$run_id" >/dev/null
pass "same node id and adb key"

# ---- profile host-adb: adb server on the host ------------------------------------
say "profile host-adb: adb server on the host"
adb_home=$(mktemp -d)
HOME=$adb_home adb -P "$host_adb_port" server nodaemon >"$work/host-adb.log" 2>&1 &
adb_pid=$!
start_bed "$host_adb_port"
status_port=$host_status_port
t0=$(now_ms)
names+=("da-host-$run_id")
podman run -d --name "da-host-$run_id" "${common[@]}" \
  -e ANDROID_ADB_SERVER_PORT="$host_adb_port" -e DEVICE_AGENT_STATUS_LISTEN=127.0.0.1:"$status_port" \
  -v "da-state-host-$run_id:/var/lib/device-agent" "$image" >/dev/null
wait_put "$t0" "status(p, 'PODMAN01') === 'AVAILABLE' && status(p, 'PODMAN02') === 'AVAILABLE'" 120 >/dev/null || fail "no report through the host's adb server"
for _ in $(seq 1 30); do podman healthcheck run "da-host-$run_id" >/dev/null 2>&1 && break; sleep 1; done
podman healthcheck run "da-host-$run_id" >/dev/null 2>&1 || fail "the healthcheck fails"
check_logs_json "da-host-$run_id"
podman stop -t 20 "da-host-$run_id" >/dev/null
[ "$(podman inspect -f '{{ .State.ExitCode }}' "da-host-$run_id")" = 0 ] || fail "exit code on stop"
pass "report delivered, healthy, JSON logs, clean stop"

# ---- hub ports: the hub service beside the agent ----------------------------------
# docs/install/container.md, "Hub ports": the image run a second time as the
# hub helper (listen.js), the only container with the hub: the USB device
# nodes (cgroup rule c 189:* rw) and a writable sysfs; no network, no
# capabilities, read-only root, uid 0 with the agent's gid 1000 so that its
# socket (0660, in a volume only these two mount) is the agent's to open.
# The agent asks it through /app/bin/hub-request (its powerCycleCommand).
# No hub on a build machine: the test makes one, a character node 189:1 for
# /dev/bus/usb/001/002 and a sysfs tree with the ports' disable files; the
# host has no /sys/bus/usb to mount the tree over, so the stand-in and the
# helper's check are told where it is (UHUBCTL_STANDIN_SYSFS, --usb-sysfs).
# The stand-in uhubctl (test/hub/uhubctl) stands where the image's uhubctl
# would be found first (/usr/local/bin) and fails unless it opens the node
# read-write and writes the disable file.
say "hub ports from the container: the hub service, a charge pause the agent asks for, doctor"
hub_tree=$work/hub-$run_id
rm -rf "$hub_tree"
mkdir -p "$hub_tree/sysfs/1-1" "$hub_tree/sysfs/1-1:1.0/1-1-port1" "$hub_tree/sysfs/1-1:1.0/1-1-port2" "$hub_tree/dev/001"
echo 1 >"$hub_tree/sysfs/1-1/busnum"
echo 2 >"$hub_tree/sysfs/1-1/devnum"
echo 0 >"$hub_tree/sysfs/1-1:1.0/1-1-port1/disable"
echo 0 >"$hub_tree/sysfs/1-1:1.0/1-1-port2/disable"
mknod -m 0664 "$hub_tree/dev/001/002" c 189 1
hub_ports=PODMAN01=1-1:1,PODMAN02=1-1:2
volumes+=("da-hub-$run_id")
hub_service() { # name, then extra podman flags
  local name=$1
  shift
  names+=("$name")
  podman run -d --name "$name" "${limits[@]}" --init --read-only --cap-drop ALL --security-opt no-new-privileges --network none \
    --user 0:1000 -v "da-hub-$run_id:/run/device-agent-hub" -e DEVICE_AGENT_HUB_PORTS="$hub_ports" \
    -v "$repo/test/hub/uhubctl:/usr/local/bin/uhubctl:ro" -v "$hub_tree/sysfs:/hub-sysfs" -e UHUBCTL_STANDIN_SYSFS=/hub-sysfs \
    -v "$hub_tree/dev:/dev/bus/usb" "$@" \
    --entrypoint node "$image" /app/dist/src/hub-helper/listen.js --socket /run/device-agent-hub/hub.sock --usb-sysfs /hub-sysfs >/dev/null
}
hub_service "da-hub-$run_id" --device-cgroup-rule 'c 189:* rw'
for _ in $(seq 1 20); do podman logs "da-hub-$run_id" 2>&1 | has 'listening on /run/device-agent-hub/hub.sock' && break; sleep 0.5; done
podman logs "da-hub-$run_id" 2>&1 | has 'listening on /run/device-agent-hub/hub.sock (mode 0660, uid 0, gid 1000)' || fail "the hub service did not listen"
pass "hub service listening: $(podman logs "da-hub-$run_id" 2>&1 | tail -1)"

kill "$bed_pid" 2>/dev/null && wait "$bed_pid" 2>/dev/null || true
"$node" "$repo/dist/test/deploy/bed.js" --adb-port "$host_adb_port" --cloud-port "$cloud_port" --control-port "$control_port" --serials PODMAN01,PODMAN02 \
  --profile samsung-galaxy-s25-plus --hub-sysfs "$hub_tree/sysfs" --hub-ports 1-1:1=PODMAN01,1-1:2=PODMAN02 >"$work/bed.log" 2>&1 &
bed_pid=$!
status_port=$hub_status_port
t0=$(now_ms)
hub_agent=(--env-file "$env_file" -e DEVICE_AGENT_HUB_PORTS="$hub_ports" -e DEVICE_AGENT_CHARGE_WAYS=PODMAN01=uhubctl -e DEVICE_AGENT_CHARGE_HIGH_PERCENT=90
  -e DEVICE_AGENT_CHARGE_LOW_PERCENT=40 -e DEVICE_AGENT_CHARGE_MAX_PAUSE_SECONDS=20 -e DEVICE_AGENT_RECOVERY_POWER_CYCLE=true
  -e "DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND=/app/bin/hub-request --socket /run/device-agent-hub/hub.sock" -v "da-hub-$run_id:/run/device-agent-hub")
names+=("da-hubagent-$run_id")
podman run -d --name "da-hubagent-$run_id" "${common[@]}" "${hub_agent[@]}" \
  -e ANDROID_ADB_SERVER_PORT="$host_adb_port" -e DEVICE_AGENT_STATUS_LISTEN=127.0.0.1:"$status_port" "$image" >/dev/null
port1=$hub_tree/sysfs/1-1:1.0/1-1-port1/disable
for _ in $(seq 1 240); do [ "$(cat "$port1")" = 1 ] && break; sleep 0.5; done
[ "$(cat "$port1")" = 1 ] || fail "PODMAN01's port was never switched off: $(podman logs "da-hubagent-$run_id" 2>&1 | grep -i 'hub\|charge' | tail -5)"
# The stand-in uhubctl writes the port before the hub service logs that it is done: waited for, as the port is.
for _ in $(seq 1 60); do podman logs "da-hub-$run_id" 2>&1 | has 'device-agent-hub: off hub 1-1 port 1: done' && break; sleep 0.5; done
podman logs "da-hub-$run_id" 2>&1 | has 'device-agent-hub: off hub 1-1 port 1: done' || fail "the hub service did not log the switch"
# By its pause's words: a start report carries a phone UNAVAILABLE while its first inventory runs, before any pause.
wait_put "$t0" "status(p, 'PODMAN01') === 'UNAVAILABLE' && message(p, 'PODMAN01').includes('charge paused to spare the battery: hub 1-1 port 1 ')" 60 >/dev/null ||
  fail "the paused phone was not reported UNAVAILABLE, paused"
for _ in $(seq 1 80); do [ "$(cat "$port1")" = 0 ] && break; sleep 0.5; done
[ "$(cat "$port1")" = 0 ] || fail "PODMAN01's port was not switched on after charge.maxPauseSeconds"
bed GET /hub | has '"hub":"1-1","port":1,"power":"off","serial":"PODMAN01"' || fail "the bed did not see port 1 off: $(bed GET /hub)"
[ "$(cat "$hub_tree/sysfs/1-1:1.0/1-1-port2/disable")" = 0 ] || fail "port 2 was switched"
pass "the agent in its container paused PODMAN01's charging: port 1 off and on again, through the hub service and the stand-in"

podman exec "da-hubagent-$run_id" device-agent doctor --json >"$work/hub-doctor.out" 2>&1 || true
has '"finding": "hub helper (/run/device-agent-hub/hub.sock): uhubctl: /usr/local/bin/uhubctl; hub 1-1: /dev/bus/usb/001/002 opens; hub 1-1: uhubctl lists port 1, 2"' <"$work/hub-doctor.out" ||
  fail "doctor in the agent's container did not check the hub tool through the hub service: $(grep -i hub "$work/hub-doctor.out")"
pass "doctor in the agent's container: $(grep 'hub helper' "$work/hub-doctor.out")"

say "the hub's conditions: not from the agent's container, not without the cgroup rule, not for others"
podman exec "da-hubagent-$run_id" /app/bin/hub-request --socket /run/device-agent-hub/hub.sock -l 1-1 -p 3 -a off >"$work/hub-unmapped.out" 2>&1 && fail "an unmapped port was switched"
has 'not in hubPorts' <"$work/hub-unmapped.out" || fail "an unmapped port was not refused: $(cat "$work/hub-unmapped.out")"
# The stand-in itself in a container run as the agent's, given the tree: no hub node there, nothing switched.
podman run --rm "${common[@]}" -v "$repo/test/hub/uhubctl:/usr/local/bin/uhubctl:ro" -v "$hub_tree/sysfs:/hub-sysfs:ro" -e UHUBCTL_STANDIN_SYSFS=/hub-sysfs \
  --entrypoint uhubctl "$image" -l 1-1 -p 1 -a off >"$work/hub-agent-direct.out" 2>&1 && fail "uhubctl switched a port from a container like the agent's"
has 'permission problems\|No compatible devices' <"$work/hub-agent-direct.out" || fail "unexpected: $(cat "$work/hub-agent-direct.out")"
podman rm -f -t 0 "da-hub-$run_id" >/dev/null
hub_service "da-hubnorule-$run_id"
for _ in $(seq 1 20); do podman logs "da-hubnorule-$run_id" 2>&1 | has 'listening on' && break; sleep 0.5; done
podman exec "da-hubagent-$run_id" /app/bin/hub-request --socket /run/device-agent-hub/hub.sock -l 1-1 -p 2 -a off >"$work/hub-norule.out" 2>&1 && fail "the hub service switched a port without the device cgroup rule"
has 'permission problems\|No compatible devices' <"$work/hub-norule.out" || fail "unexpected without the cgroup rule: $(cat "$work/hub-norule.out")"
# Why, as the helper's check (doctor's question) sees it from there: the device policy refuses the node.
podman exec "da-hubagent-$run_id" /app/bin/hub-request --socket /run/device-agent-hub/hub.sock --check >"$work/hub-norule-check.out" 2>&1 && fail "the check passed without the cgroup rule"
has '/dev/bus/usb/001/002 does not open (EPERM)' <"$work/hub-norule-check.out" || fail "the check did not name the refused node: $(cat "$work/hub-norule-check.out")"
[ "$(cat "$hub_tree/sysfs/1-1:1.0/1-1-port2/disable")" = 0 ] || fail "port 2 was switched"
[ "$(stat -c '%a %u %g' "$(podman volume inspect -f '{{ .Mountpoint }}' "da-hub-$run_id")/hub.sock")" = "660 0 1000" ] || fail "the socket is not 0660 root:1000"
pass "unmapped port refused; the stand-in fails in a container like the agent's and in a hub service without the cgroup rule; socket 0660 root:1000"
podman stop -t 20 "da-hubagent-$run_id" >/dev/null

say "container deploy checks passed"
echo "container: $passed passed, 0 failed"
