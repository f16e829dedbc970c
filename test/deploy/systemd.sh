#!/usr/bin/env bash
# The systemd units under a real systemd: a minimal Debian 12 booted with
# systemd-nspawn, device-agent installed in it exactly as docs/install/systemd.md's
# "Install with systemd" steps say (each step's first sh block, read from
# that page), and the device simulator and the cloud double running inside
# it (test/deploy/bed.ts). Then, from outside:
#   a report is delivered with the simulated phones; the API key comes from
#   $CREDENTIALS_DIRECTORY and is in no journal line; the node id survives a
#   restart; a bad setting exits 2 and is not restarted; an adb server
#   restart leaves no ghost and does not restart the agent; stop is bounded;
#   a crash is restarted; both units come up at boot.
# Needs root, debootstrap and systemd-container (.ci/run installs them) and
# `npm test` (or `npm run build`) run before, for dist/. Takes a few minutes.
#
# Quirks of these build machines, not of the product, kept here:
# - nspawn runs with --register=no --keep-unit (no machined in a container);
# - the rootfs borrows the host's CA bundle for npm (NODE_EXTRA_CA_CERTS):
#   the registry may be reached through a proxy whose CA only the host knows;
# - nodejs comes from apt after debootstrap (in --include it breaks);
# - there is no udev inside a container, so step 4's udevadm calls are
#   stubbed (the rules file is still copied where the README says).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/deploy/lib.sh
. "$here/lib.sh"
root=$work/systemd-root
readme_step() { "$node" "$repo/dist/test/deploy/readme-steps.js" "$repo/docs/install/systemd.md" '## Install with systemd' "$1"; }
KEY=test-api-key-3f9a1c7e5b2d # the cloud double's key (test/cloud-double)
BOX_NODE=/opt/device-agent/node_modules/node/bin/node

fail() {
  echo "FAIL: $*" >&2
  if [ -n "${leader:-}" ]; then
    in_box journalctl --no-pager -o cat -n 30 -u da-bed >&2 || true
    in_box journalctl --no-pager -n 40 -u device-agent -u device-agent-adb >&2 || true
  fi
  exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (systemd-nspawn)"
for tool in debootstrap systemd-nspawn nsenter; do command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install debootstrap systemd-container)"; done
[ -f "$repo/dist/test/deploy/bed.js" ] || fail "dist/ is missing: run npm test or npm run build first"

# ---- the machine -------------------------------------------------------------
ensure_base
rm -rf "$root"
cp -a "$base" "$root"

nspawn_run() {
  systemd-nspawn -q -D "$root" --register=no --keep-unit \
    --bind-ro="$repo:/src" --bind-ro=/etc/ssl/certs/ca-certificates.crt:/etc/ssl/host-ca.crt \
    --setenv=NODE_EXTRA_CA_CERTS=/etc/ssl/host-ca.crt --setenv=DEBIAN_FRONTEND=noninteractive --setenv=npm_config_progress=false \
    /bin/bash -euxc "$1"
}

say "README steps 1 and 2 (packages, then the project with npm ci), with the network"
step2=$(readme_step 2)
step2=${step2//REPOSITORY-URL//src}
nspawn_run "$(readme_step 1)
$step2" >"$work/install.log" 2>&1 || fail "README steps 1-2 failed: $(tail -20 "$work/install.log")"
pass "README steps 1-2"

# ---- boot --------------------------------------------------------------------
leader=
boot() {
  systemd-nspawn -q -D "$root" -b --register=no --keep-unit --private-network >"$work/boot.log" 2>&1 &
  nspawn_pid=$!
  for _ in $(seq 1 120); do
    leader=$(pgrep -P "$nspawn_pid" | head -n 1 || true)
    if [ -n "$leader" ]; then
      state=$(in_box systemctl is-system-running 2>/dev/null || true)
      case "$state" in running | degraded) return 0 ;; esac
    fi
    sleep 0.5
  done
  fail "the container did not boot: $(tail -20 "$work/boot.log")"
}
in_box() {
  nsenter -t "$leader" -m -u -i -n -p -- /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
poweroff() {
  in_box systemctl poweroff >/dev/null 2>&1 || true
  wait "$nspawn_pid" || true
  leader=
}
trap 'if [ -n "${leader:-}" ]; then poweroff; fi' EXIT

bed_start() {
  in_box systemd-run --unit=da-bed --collect -p WorkingDirectory=/opt/device-agent \
    "$BOX_NODE" /opt/device-agent/dist/test/deploy/bed.js --serials DEPLOY01,DEPLOY02,DEPLOY03 >/dev/null
}
bed() { # bed METHOD PATH: the bed's control port, inside the box
  in_box "$BOX_NODE" -e "fetch('http://127.0.0.1:8081$2', { method: '$1' }).then(async (r) => { process.stdout.write(await r.text()); process.exit(r.ok ? 0 : 1); }, () => process.exit(2))"
}
box_ms() { in_box date +%s%3N; }
unit() { in_box systemctl show -P "$2" "$1"; }

say "boot"
boot
pass "booted: $(in_box systemctl is-system-running || true)"

say "README steps 3 to 6 inside the booted system"
in_box bash -euxc "$(readme_step 3)" >>"$work/install.log" 2>&1 || fail "README step 3 failed: $(tail -20 "$work/install.log")"
in_box bash -euxc "udevadm() { echo \"(no udev in a container: udevadm \$* skipped)\"; }
$(readme_step 4)" >>"$work/install.log" 2>&1 || fail "README step 4 failed: $(tail -20 "$work/install.log")"
# Step 5 edits config.json with an editor and reads the key at a prompt: the
# editor is played by a function that writes the test's settings, and the key
# comes on standard input.
printf '%s\n' "$KEY" | in_box bash -euxc "editor() {
  $BOX_NODE -e '
    const fs = require(\"fs\"); const c = JSON.parse(fs.readFileSync(process.argv[1], \"utf8\"));
    Object.assign(c, { baseUrl: \"http://127.0.0.1:8080/v1\", username: \"agent@example.test\", schedule: \"*/10 * * * * *\", jitterSeconds: 0 });
    fs.writeFileSync(process.argv[1], JSON.stringify(c, null, 2));' \"\$1\"
}
$(readme_step 5)" >>"$work/install.log" 2>&1 || fail "README step 5 failed: $(tail -20 "$work/install.log")"
[ "$(in_box stat -c %a /etc/device-agent/api-key)" = 600 ] || fail "the key file is not 0600"
bed_start
in_box bash -euxc "$(readme_step 6)" >>"$work/install.log" 2>&1 || fail "README step 6 failed: $(tail -20 "$work/install.log")"
pass "README steps 3-6"

say "a report is delivered with the simulated phones"
t0=$(box_ms)
all3="['DEPLOY01','DEPLOY02','DEPLOY03'].every((u) => status(p, u) === 'AVAILABLE')"
first=$(wait_put "$t0" "$all3" 90) || fail "no report with the three phones"
node_id=$(printf '%s' "$first" | node_id_of)
pass "report delivered by node $node_id"

say "the key comes from \$CREDENTIALS_DIRECTORY and is in no journal line"
unit device-agent Environment | has "$KEY" && fail "the key is in the unit's environment"
in_box journalctl --no-pager -o cat | has "$KEY" && fail "the key is in the journal"
in_box systemctl cat device-agent | has '^LoadCredential=api-key:' || fail "no LoadCredential=api-key"
in_box test -s /run/credentials/device-agent.service/api-key || fail "no api-key in \$CREDENTIALS_DIRECTORY"
pass "key only through the credential (the double accepted it), never in the journal"

say "the node id survives a restart"
t0=$(box_ms)
in_box systemctl restart device-agent
wait_put "$t0" "p.nodeId === '$node_id'" 60 >/dev/null || fail "after a restart the node id changed or no report came"
pass "same node id after restart"

say "an adb server restart leaves no ghost and does not restart the agent"
pid_before=$(unit device-agent MainPID)
t0=$(box_ms)
in_box systemctl restart device-agent-adb
# adb 29 forgets devices reached with `adb connect` when it restarts: two of
# the three phones are connected again, the third stays away.
sleep 1
bed POST '/connect?serials=DEPLOY01,DEPLOY02' >/dev/null || fail "could not reconnect the phones"
wait_put "$t0" "status(p, 'DEPLOY03') === 'UNPLUGGED' && status(p, 'DEPLOY01') === 'AVAILABLE' && status(p, 'DEPLOY02') === 'AVAILABLE'" 60 >/dev/null ||
  fail "after the adb restart DEPLOY03 was not reported UNPLUGGED with the other two present"
[ "$(unit device-agent MainPID)" = "$pid_before" ] || fail "the adb restart restarted the agent"
bed POST '/connect?serials=DEPLOY03' >/dev/null
pass "DEPLOY03 reported UNPLUGGED once, the others present, the agent kept running (pid $pid_before)"

say "a bad setting exits 2 and is not restarted"
in_box bash -c 'cp /etc/device-agent/agent.env /etc/device-agent/agent.env.good && echo DEVICE_AGENT_SCHEDULE=not-a-cron >> /etc/device-agent/agent.env'
in_box systemctl restart device-agent || true
sleep 12 # past RestartSec=10s
[ "$(unit device-agent ExecMainStatus)" = 2 ] || fail "exit status $(unit device-agent ExecMainStatus), not 2"
[ "$(unit device-agent NRestarts)" = 0 ] || fail "restarted $(unit device-agent NRestarts) times after a configuration error"
[ "$(unit device-agent ActiveState)" = failed ] || fail "state $(unit device-agent ActiveState), not failed"
in_box journalctl --no-pager -o cat -u device-agent | has 'configuration error: schedule' || fail "no log line naming the setting"
in_box bash -c 'mv /etc/device-agent/agent.env.good /etc/device-agent/agent.env && systemctl reset-failed device-agent && systemctl start device-agent'
pass "exit 2, no restart, the setting named"

say "stop is bounded"
wait_put "$(box_ms)" "true" 30 >/dev/null || fail "no report after the fix"
t=$SECONDS
in_box systemctl stop device-agent
[ $((SECONDS - t)) -lt 20 ] || fail "stop took $((SECONDS - t)) s"
[ "$(unit device-agent Result)" = success ] || fail "stop result $(unit device-agent Result)"
pass "stopped in $((SECONDS - t)) s, cleanly"

say "a crash is restarted"
in_box systemctl start device-agent
sleep 2
in_box systemctl kill -s SIGKILL device-agent
for _ in $(seq 1 40); do
  [ "$(unit device-agent NRestarts)" -ge 1 ] && [ "$(unit device-agent ActiveState)" = active ] && break
  sleep 0.5
done
[ "$(unit device-agent NRestarts)" -ge 1 ] || fail "not restarted after SIGKILL"
pass "restarted after SIGKILL"

say "both units come up at boot"
poweroff
boot
for u in device-agent-adb device-agent; do
  for _ in $(seq 1 60); do [ "$(in_box systemctl is-active "$u" || true)" = active ] && break; sleep 0.5; done
  [ "$(in_box systemctl is-active "$u" || true)" = active ] || fail "$u is not active after boot"
done
bed_start
wait_put 0 "p.nodeId === '$node_id' && ['DEPLOY01','DEPLOY02','DEPLOY03'].every((u) => status(p, u) === 'AVAILABLE')" 90 >/dev/null ||
  fail "no report with the same node id after a reboot"
pass "both units active after boot; same node id"

in_box journalctl --no-pager -o cat | has "$KEY" && fail "the key is in the journal"
say "systemd deploy checks passed"
echo "systemd: $passed passed, 0 failed"
