#!/usr/bin/env bash
# The Debian package and the Ansible rollout, for real: builds the package
# of this checkout as version N and as N+1 (npm run package), runs lintian
# on it (and on the arm64 package), then boots three Debian 12 hosts with
# systemd-nspawn, each in a network namespace of its own reached over a veth
# pair, each with its simulated phones and its cloud double
# (test/deploy/bed.ts), publishes the packages in the lab's signed apt
# repository (npm run repository, a key made as docs/install/repository.md
# says), serves it over HTTP to the hosts, and drives
# deploy/ansible/rollout.yml over SSH with Debian's ansible as
# docs/install/fleet.md says:
#   fresh install of N (all hosts in one batch); a second run changes nothing
#   (with device_agent_postcheck_phones=fail, which fails host 2 at doctor);
#   upgrade to N+1 one host at a time: on every host the package,
#   `device-agent --version`, /metrics and the cloud double agree on the
#   version, the node id, key and settings survive, the adb server is not
#   restarted, and the cloud never saw a present phone gone; the rollback to
#   N in batches of two, host 2's cloud answering 503: host 1 rolled back and
#   checked so, host 2 failing its post-check stops the rollout, and host 3,
#   of the next batch, keeps N+1;
#   every run has a fourth host that cannot be reached and a phone on host 2
#   waiting for "Allow USB debugging": the rollout goes on without the one
#   and passes the other, and its summary names both; more hosts down than
#   device_agent_max_unreachable_percentage stops it before any change;
#   the proxy (with its password) and a CA reach the agent as a 0600
#   credential and a 0644 file, never agent.env; a secret setting or a value
#   with a line break in device_agent_settings is refused, nothing changed;
#   a repository key other than the one that signs it stops its host at the
#   repository's index, the package untouched;
#   remove keeps configuration and state, purge removes them and the user,
#   and a fresh install without configuration does not start the agent;
#   then the README's one-host install from the repository, run as written,
#   ends reporting.
# The API key and the proxy password are in no journal line and no Ansible
# output (all runs with --diff).
# Needs root, debootstrap, systemd-container, ansible, lintian, dpkg-dev,
# openssh-client, iproute2, aptly, gnupg and python3 (.ci/run installs
# them), and `npm ci`.
#
# Quirks of these build machines, not of the product, kept here:
# - nspawn runs with --register=no --keep-unit (no machined in a container);
# - the hosts' image gets openssh-server, python3-apt (Ansible's apt module),
#   sudo and the package's dependencies (adb) from Debian's mirror when it is
#   made, and then forgets that mirror: the hosts have no route out, as a lab
#   host without internet, and their one apt source is the lab's repository,
#   which this machine serves on each host's side of its veth pair;
# - the hosts share the image's SSH host keys, so the controller does not
#   check them here (in a lab, known_hosts does).
set -euo pipefail
# The ports this check and its beds draw (test/sim/free-port.ts, freePort) come from a slice of their own: the
# container check beside it shares the host's network and holds ports it drew and listens on later.
export DEVICE_AGENT_TEST_PORT_SLICE=4

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=test/deploy/lib.sh
. "$here/lib.sh"
KEY=test-api-key-3f9a1c7e5b2d # the cloud double's key (test/cloud-double)
PROXY_PW=proxy-pw-8c1e5d0a77 # in the proxy URL the role hands over as a credential
run=$work/rollout
out=$run/packages
image=$work/rollout-host
hosts=(1 2 3)
declare -A leader nspawn_pid node_id adb_pid

ns_of() { echo "da-package-$1"; }
veth_of() { echo "dapkg$1"; }
# 10.199.24.0/24 in /30s: .4n+1 on this side, .4n+2 in host n.
gw_of() { echo "10.199.24.$((4 * $1 + 1))"; }
ip_of() { echo "10.199.24.$((4 * $1 + 2))"; }
phones_of() { echo "H$1PHONE1,H$1PHONE2${2:+,$2}"; }
# Host 2 has a third phone, waiting for "Allow USB debugging" (unauthorized).
locked_of() { [ "$1" = 2 ] && echo H2PHONE3 || true; }

fail() {
  echo "FAIL: $*" >&2
  for h in "${hosts[@]}"; do
    [ -n "${leader[$h]:-}" ] || continue
    echo "--- host $h" >&2
    in_host "$h" journalctl --no-pager -n 25 -u device-agent -u device-agent-adb -u da-bed >&2 || true
  done
  exit 1
}

[ "$(id -u)" = 0 ] || fail "needs root (systemd-nspawn, network namespaces)"
for tool in debootstrap systemd-nspawn nsenter ansible-playbook lintian dpkg-shlibdeps ssh ssh-keygen ip aptly gpg python3; do
  command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install debootstrap systemd-container ansible lintian dpkg-dev openssh-client iproute2 aptly gnupg python3)"
done
[ -f "$repo/dist/test/deploy/bed.js" ] || fail "dist/ is missing: run npm test or npm run build first"
# What a run that was stopped halfway left (a host's overlay, its veth and
# network namespace, all named by this check) is taken away first, so that a
# run does not fail on its predecessor's leftovers. Two runs at once share
# those names: run one at a time.
for h in "${hosts[@]}"; do
  if mountpoint -q "$run/h$h/root"; then umount "$run/h$h/root"; fi
  ip link del "$(veth_of "$h")" 2>/dev/null || true
  ip netns del "$(ns_of "$h")" 2>/dev/null || true
done
if ip route | has '10\.199\.24\.'; then
  ip link show "$(veth_of 1)" >/dev/null 2>&1 || fail "10.199.24.0/24 is routed on this machine already: the test hosts' addresses would clash"
fi

# ---- hosts ---------------------------------------------------------------------
in_host() { # host command...: inside host n's namespaces, a clean environment
  nsenter -t "${leader[$1]}" -m -u -i -n -p -- /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "${@:2}"
}
unit() { in_host "$1" systemctl show -P "$3" "$2"; }
host_ms() { in_host "$1" date +%s%3N; }
# lib.sh's bed and wait_put ask the bed of host $bed_host, on its loopback.
bed_host=1
# lib.sh's wait_phones: host $bed_host's adb server and phones.
adb_restarts() { unit "$bed_host" device-agent-adb NRestarts; }
adb_last_words() { in_host "$bed_host" journalctl --no-pager -o cat -u device-agent-adb | grep -E 'adb F |Main process exited' | tail -2 | tr '\n' ' '; }
bed_phones() { phones_of "$bed_host" "$(locked_of "$bed_host")"; }
bed_port=8081
bed_node() { ip netns exec "$(ns_of "$bed_host")" "$node" -e "$1"; }
status_page() { # host path: /metrics or /healthz of the agent on host n
  ip netns exec "$(ns_of "$1")" "$node" -e "fetch('http://127.0.0.1:9317$2').then(async (r) => { process.stdout.write(await r.text()); process.exit(r.ok ? 0 : 1); }, () => process.exit(2))"
}

shutdown_host() {
  local h=$1
  if [ -n "${leader[$h]:-}" ]; then
    in_host "$h" systemctl poweroff >/dev/null 2>&1 || true
    wait "${nspawn_pid[$h]}" 2>/dev/null || true
    leader[$h]=
  fi
  mountpoint -q "$run/h$h/root" && umount "$run/h$h/root"
  ip link del "$(veth_of "$h")" 2>/dev/null || true
  ip netns del "$(ns_of "$h")" 2>/dev/null || true
}
# The repository's HTTP servers (one a host) and the gpg-agents of the keys.
declare -A server_pid
cleanup() {
  for h in "${hosts[@]}"; do shutdown_host "$h"; done
  for h in "${!server_pid[@]}"; do kill "${server_pid[$h]}" 2>/dev/null || true; wait "${server_pid[$h]}" 2>/dev/null || true; done
  for home in "$run"/keys/*/; do [ -d "$home" ] && GNUPGHOME=$home gpgconf --kill all 2>/dev/null || true; done
}
trap cleanup EXIT

# The image of a lab host: the cached Debian 12 of lib.sh plus what a lab
# host has from its own mirror. Remade when this recipe changes.
recipe="openssh-server python3 python3-apt sudo adb android-sdk-platform-tools-common (1)"
if [ "$(cat "$image/.recipe" 2>/dev/null)" != "$recipe" ]; then
  ensure_base
  say "the lab hosts' image (kept in $image)"
  rm -rf "$image.tmp" "$image"
  cp -a "$base" "$image.tmp"
  systemd-nspawn -q -D "$image.tmp" --register=no --keep-unit --setenv=DEBIAN_FRONTEND=noninteractive /bin/bash -euxc "
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends ${recipe% (*}
    apt-get clean
    rm -rf /var/lib/apt/lists/*
    : > /etc/machine-id" >"$work/rollout-image.log" 2>&1 || fail "the hosts' image: $(tail -20 "$work/rollout-image.log")"
  echo "$recipe" >"$image.tmp/.recipe"
  mv "$image.tmp" "$image"
fi

# ---- the packages ------------------------------------------------------------------
# test/deploy/packages.sh, here or (DEPLOY_PREPARED) by .ci/run beside the e2e
# tier. Either way it only packages the dist/ that `npm test` made: rebuilding
# it here would rewrite files that the deploy checks running beside this one
# (.ci/run) read. lintian reads both packages whole (34 s for the two on a
# quiet machine, packages.sh): here it runs while the hosts boot and take the first install, and its verdict is
# taken after that.
say "packaging/deb/build.sh: N, N+1, arm64 (test/deploy/packages.sh)"
rm -rf "$run"
mkdir -p "$run"
packer=
if [ -n "${DEPLOY_PREPARED:-}" ]; then
  out=$DEPLOY_PREPARED
else
  bash "$here/packages.sh" "$out" >"$out.log" 2>&1 &
  packer=$!
fi
await_packages "$out" built "$packer"
read -r N N1 <"$out/versions"
build_number=$(dpkg-deb --fsys-tarfile "$out/device-agent_${N}_amd64.deb" | tar -xO ./usr/lib/device-agent/build-number)
pass "built $N (amd64, arm64) and $N1 (amd64), build $build_number"

say "the lab's repository: the three packages, signed with a key made as docs/install/repository.md says"
mkdir -p "$run/keys"
fpr=$(make_signing_key "$run/keys/lab" 'Rollout Check Lab' "$run/keys.log") || fail "the page's key step failed: $(tail -5 "$run/keys.log")"
other_fpr=$(make_signing_key "$run/keys/other" 'Another Lab' "$run/keys.log") || fail "the other key: $(tail -5 "$run/keys.log")"
GNUPGHOME=$run/keys/other gpg --batch --export "$other_fpr" >"$run/keys/other.gpg"
GNUPGHOME=$run/keys/lab bash "$repo/packaging/apt/publish.sh" --key "$fpr" --root "$run/apt" \
  "$out/device-agent_${N}_amd64.deb" "$out/device-agent_${N}_arm64.deb" "$out/device-agent_${N1}_amd64.deb" >"$run/publish.log" 2>&1 ||
  fail "npm run repository: $(tail -5 "$run/publish.log")"
key_sha=$(sha256sum "$run/apt/public/device-agent.gpg" | cut -d' ' -f1)
apt_port=$("$node" --input-type=module -e "import { freePort } from '$repo/dist/test/sim/adb-server.js'; console.log(await freePort());")
pass "$(sed -n 's/^repository: .*: device-agent //p' "$run/publish.log"), signed by $fpr"

# ---- boot -------------------------------------------------------------------------
ssh-keygen -q -t ed25519 -N '' -C rollout-test -f "$run/id_ed25519"
binds=(--bind-ro="$repo:/src")
# A checkout whose node_modules is a link (a git worktree): its target too.
modules=$(readlink -f "$repo/node_modules")
[ "$modules" = "$repo/node_modules" ] || binds+=(--bind-ro="$modules")

boot_host() {
  local h=$1 dir=$run/h$1 ns
  ns=$(ns_of "$h")
  mkdir -p "$dir/upper" "$dir/work" "$dir/root"
  mount -t overlay overlay -o "lowerdir=$image,upperdir=$dir/upper,workdir=$dir/work" "$dir/root"
  install -d -m 0700 "$dir/root/root/.ssh"
  install -m 0600 "$run/id_ed25519.pub" "$dir/root/root/.ssh/authorized_keys"
  echo "lab-host-$h" >"$dir/root/etc/hostname"
  # No way to Debian's mirror from here: the lab's repository is its one source.
  rm -f "$dir/root/etc/apt/sources.list"
  "$node" -e 'process.stdout.write(require("crypto").randomBytes(16).toString("hex") + "\n")' >"$dir/root/etc/machine-id"
  ip netns add "$ns"
  ip link add "$(veth_of "$h")" type veth peer name eth0 netns "$ns"
  ip addr add "$(gw_of "$h")/30" dev "$(veth_of "$h")"
  ip link set "$(veth_of "$h")" up
  ip -n "$ns" addr add "$(ip_of "$h")/30" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  systemd-nspawn -q -D "$dir/root" -b --register=no --keep-unit --network-namespace-path="/run/netns/$ns" "${binds[@]}" >"$dir/boot.log" 2>&1 &
  nspawn_pid[$h]=$!
}
wait_booted() {
  local h=$1 state
  for _ in $(seq 1 240); do
    leader[$h]=$(pgrep -P "${nspawn_pid[$h]}" | head -n 1 || true)
    if [ -n "${leader[$h]}" ]; then
      state=$(in_host "$h" systemctl is-system-running 2>/dev/null || true)
      case "$state" in running | degraded) return 0 ;; esac
    fi
    sleep 0.5
  done
  fail "host $h did not boot: $(tail -20 "$run/h$h/boot.log")"
}
say "boot three hosts, each in its own network namespace"
for h in "${hosts[@]}"; do boot_host "$h"; done
for h in "${hosts[@]}"; do
  wait_booted "$h"
  # The bed starts before the package: its phones connect once the
  # package's adb server answers.
  in_host "$h" systemd-run --quiet --unit=da-bed --collect -p WorkingDirectory=/src \
    /src/node_modules/node/bin/node /src/dist/test/deploy/bed.js --serials "$(phones_of "$h" "$(locked_of "$h")")" \
    --unauthorized "$(locked_of "$h")" --adb-wait-seconds 1800 >/dev/null
done
for h in "${hosts[@]}"; do
  for _ in $(seq 1 60); do ssh -q -i "$run/id_ed25519" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=2 "root@$(ip_of "$h")" true && break; sleep 0.5; done
  ssh -q -i "$run/id_ed25519" -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null "root@$(ip_of "$h")" true || fail "no SSH to host $h at $(ip_of "$h")"
  in_host "$h" sh -c '! dpkg -s device-agent >/dev/null 2>&1' || fail "host $h has device-agent before the rollout"
done
pass "3 hosts booted, reachable over SSH at $(ip_of 1), $(ip_of 2), $(ip_of 3)"

# The repository, as a lab's web server serves it: python3's http.server on
# this side of each host's veth pair (the hosts' only way out).
for h in "${hosts[@]}"; do
  python3 -m http.server "$apt_port" --bind "$(gw_of "$h")" --directory "$run/apt/public" >"$run/apt-http-$h.log" 2>&1 &
  server_pid[$h]=$!
done
for h in "${hosts[@]}"; do
  for _ in $(seq 1 40); do in_host "$h" /usr/lib/apt/apt-helper download-file "http://$(gw_of "$h"):$apt_port/device-agent.gpg" /tmp/key.gpg "SHA256:$key_sha" >/dev/null 2>&1 && break; sleep 0.25; done
  in_host "$h" test -s /tmp/key.gpg || fail "host $h cannot reach the repository at http://$(gw_of "$h"):$apt_port: $(tail -3 "$run/apt-http-$h.log")"
done
pass "the repository served to each host at http://<its gateway>:$apt_port"

# ---- the playbook, as docs/install/fleet.md runs it ---------------------------------
cat >"$run/inventory.ini" <<EOF
[device_agents]
lab-host-1 ansible_host=$(ip_of 1) device_agent_repository_url=http://$(gw_of 1):$apt_port
lab-host-2 ansible_host=$(ip_of 2) device_agent_repository_url=http://$(gw_of 2):$apt_port
lab-host-3 ansible_host=$(ip_of 3) device_agent_repository_url=http://$(gw_of 3):$apt_port
# Down: nothing listens there, SSH is refused.
lab-host-4 ansible_host=127.0.0.1 ansible_port=1

[device_agents:vars]
ansible_user=root
ansible_ssh_private_key_file=$run/id_ed25519
ansible_ssh_common_args=-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null
ansible_python_interpreter=/usr/bin/python3
EOF
# A CA the agent is to trust besides the others (any valid PEM will do: the cloud double is plain http).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=rollout-test-ca -days 2 -keyout /dev/null -out "$run/ca.pem" 2>/dev/null ||
  fail "openssl could not make the test CA"
cat >"$run/fleet.yml" <<EOF
device_agent_repository_key: $run/apt/public/device-agent.gpg
device_agent_base_url: http://127.0.0.1:8080/v1
device_agent_username: agent@example.test
device_agent_api_key: $KEY
device_agent_postcheck_timeout: 30
# lab-host-4 of 4 is down: 25 %.
device_agent_max_unreachable_percentage: 25
device_agent_https_proxy: http://lab-proxy:$PROXY_PW@127.0.0.1:3128
device_agent_ca_file: $run/ca.pem
device_agent_settings:
  DEVICE_AGENT_SCHEDULE: "*/20 * * * * *"
  DEVICE_AGENT_JITTER_SECONDS: 0
EOF
# --diff: the changes to files are shown, so that a key written without
# no_log and diff: false would be in the log the last check reads.
playbook() { # log-name args...: exit status of ansible-playbook
  ANSIBLE_PIPELINING=True ANSIBLE_RETRY_FILES_ENABLED=False ANSIBLE_NOCOLOR=1 ANSIBLE_FORKS=3 \
    ANSIBLE_SSH_ARGS='-o ControlMaster=auto -o ControlPersist=300s' \
    ansible-playbook --diff -i "$run/inventory.ini" "$repo/deploy/ansible/rollout.yml" -e "@$run/fleet.yml" "${@:2}" >"$run/ansible-$1.log" 2>&1
}
# "changed=N" of a host in the PLAY RECAP of a log.
changed_of() { sed -n "s/^$2 *: .*changed=\([0-9]*\).*/\1/p" "$run/ansible-$1.log"; }
# The line of the summary at the end of a log about a host.
summary_of() { sed -n "s/^ *\"\($2: .*\)\",\{0,1\}\$/\1/p" "$run/ansible-$1.log" | sed 's/\\"/"/g'; }
# The batches of the rollout play in a log.
batches_of() { grep -c '^PLAY \[Roll device-agent out' "$run/ansible-$1.log"; }
# The down host and host 2's unauthorized phone, named in a run's summary.
down_named() { # log
  summary_of "$1" lab-host-4 | has '^lab-host-4: unreachable, not changed$' ||
    fail "the $1 run's summary does not name lab-host-4 as unreachable: $(grep -A8 'Say which host runs' "$run/ansible-$1.log" | tail -7)"
  summary_of "$1" lab-host-2 | has 'doctor warns: \[WARN\] device [^ ]*: unauthorized' ||
    fail "the $1 run's summary does not name host 2's unauthorized phone: $(summary_of "$1" lab-host-2)"
}

# Checks that host h runs version V: the package, the command, /metrics and
# a report delivered since T0 that carries V and both phones present.
check_host() { # h V T0 label
  local h=$1 v=$2 t0=$3 put got
  got=$(in_host "$h" dpkg-query -W -f '${Version}' device-agent)
  [ "$got" = "$v" ] || fail "host $h ($4): package $got installed, not $v"
  got=$(in_host "$h" device-agent --version | head -1)
  [ "$got" = "device-agent $v" ] || fail "host $h ($4): device-agent --version says '$got'"
  status_page "$h" /metrics | has "^device_agent_build_info{version=\"$v\",revision=\"$build_number\"" ||
    fail "host $h ($4): /metrics has no device_agent_build_info for $v, revision $build_number"
  bed_host=$h
  local all="['H${h}PHONE1','H${h}PHONE2'].every((u) => status(p, u) === 'AVAILABLE')"
  put=$(wait_phones "$t0" "p.version === '$v' && p.buildNumber === '$build_number' && $all" 60) ||
    fail "host $h ($4): no report of version $v with both phones since the rollout started"
  if [ -n "${node_id[$h]:-}" ]; then
    [ "$(printf '%s' "$put" | node_id_of)" = "${node_id[$h]}" ] || fail "host $h ($4): the node id changed"
  else
    node_id[$h]=$(printf '%s' "$put" | node_id_of)
  fi
}
# Not one report of host h ever showed one of its phones gone.
never_gone() { # h
  bed_host=$1
  wait_put 0 "p.devices.some((d) => d.status === 'UNPLUGGED')" 1 >/dev/null && fail "host $1: the cloud was told a present phone was gone"
  return 0
}

say "fresh install of $N, all hosts in one batch"
t0=$(host_ms 1)
playbook fresh -e "device_agent_version=$N" -e device_agent_batch=3 || fail "the fresh install failed: $(tail -30 "$run/ansible-fresh.log")"
# Debian's adb dies now and then (SIGSEGV, an epoll abort), and the server
# systemd starts again does not know the phones the bed reached with `adb
# connect`: host 2's doctor then truly says adb lists none, and its summary
# cannot name the unauthorized phone (CI at 51a4a70e). Its phones connected
# again, a second run, which changes nothing, gives the summary to read.
fresh=fresh
bed_host=2
if [ "$(adb_restarts)" != 0 ]; then
  echo "note: host 2's adb server died during the fresh install and systemd restarted it ($(adb_last_words)); its phones are connected again and the run repeated for the summary" >&2
  bed POST "/connect?serials=$(bed_phones)" >/dev/null || true
  for _ in $(seq 1 30); do bed GET /ready >/dev/null 2>&1 && break; sleep 1; done
  fresh=fresh-again
  playbook "$fresh" -e "device_agent_version=$N" -e device_agent_batch=3 || fail "the fresh install's second run failed: $(tail -30 "$run/ansible-$fresh.log")"
fi
down_named "$fresh"
for h in "${hosts[@]}"; do
  summary_of "$fresh" "lab-host-$h" | has "^lab-host-$h: runs $N, checked" || fail "the summary says: $(summary_of "$fresh" "lab-host-$h")"
  check_host "$h" "$N" "$t0" "fresh install"
  [ "$(in_host "$h" stat -c '%a %U' /etc/device-agent/api-key)" = "600 root" ] || fail "host $h: the key file is not 0600 root"
  in_host "$h" systemctl cat device-agent | has '^LoadCredential=api-key:/etc/device-agent/api-key' || fail "host $h: no api-key credential"
  adb_pid[$h]=$(unit "$h" device-agent-adb MainPID)
done
pass "all 3 hosts run $N and reported it with their phones (nodes ${node_id[1]}, ${node_id[2]}, ${node_id[3]})"
pass "lab-host-4, down, left out and named; host 2's unauthorized phone a warning of its doctor, named in the summary: $(summary_of "$fresh" lab-host-2)"

say "lintian, started after the build"
await_packages "$out" lintian "$packer"
pass "lintian: no error or warning on either architecture (overrides explained in packaging/deb/lintian-overrides)"

say "the proxy and the CA: a credential and a file, not agent.env"
for h in "${hosts[@]}"; do
  [ "$(in_host "$h" stat -c '%a %U' /etc/device-agent/https-proxy)" = "600 root" ] || fail "host $h: the proxy file is not 0600 root"
  [ "$(in_host "$h" stat -c '%a' /etc/device-agent/ca.pem)" = 644 ] || fail "host $h: the CA file is not 0644"
  in_host "$h" cat /etc/device-agent/agent.env | has "$PROXY_PW" && fail "host $h: the proxy password is in agent.env"
  in_host "$h" cat /etc/device-agent/agent.env | has '^DEVICE_AGENT_CA_FILE=/etc/device-agent/ca.pem$' || fail "host $h: agent.env does not name the CA file"
  in_host "$h" cat /run/credentials/device-agent.service/https-proxy | has "^http://lab-proxy:$PROXY_PW@127.0.0.1:3128\$" ||
    fail "host $h: the service has no https-proxy credential"
  in_host "$h" sh -c 'tr "\0" "\n" </proc/$(systemctl show -P MainPID device-agent)/environ' | has "$PROXY_PW" && fail "host $h: the proxy is in the agent's environment"
done
# The agent reads it: the packaged doctor, as root (run as the service), asked about an https cloud
# by an environment file of a drop-in (systemd lets the unit's files win over the caller's variables).
in_host 1 bash -c 'printf "[Service]\nEnvironmentFile=/etc/device-agent/https-cloud.env\n" >/etc/systemd/system/device-agent.service.d/zz-https-cloud.conf &&
  echo DEVICE_AGENT_BASE_URL=https://cloud.invalid/v1 >/etc/device-agent/https-cloud.env && systemctl daemon-reload'
doctor_out=$(in_host 1 device-agent doctor --json 2>&1 || true)
in_host 1 bash -c 'rm /etc/systemd/system/device-agent.service.d/zz-https-cloud.conf /etc/device-agent/https-cloud.env && systemctl daemon-reload'

printf '%s\n' "$doctor_out" | has '"finding": "proxy: requests to cloud.invalid:443 go through http://127.0.0.1:3128 (httpsProxy (DEVICE_AGENT_HTTPS_PROXY, else the https-proxy credential.*as proxy user lab-proxy"' ||
  fail "the packaged doctor did not read the proxy credential: $(printf '%s\n' "$doctor_out" | grep proxy)"
printf '%s\n' "$doctor_out" | has 'TLS trust: .*caFile /etc/device-agent/ca.pem (.*rollout-test-ca' || fail "the packaged doctor does not trust the CA file: $(printf '%s\n' "$doctor_out" | grep 'TLS trust')"
printf '%s\n' "$doctor_out" | has "$PROXY_PW" && fail "doctor printed the proxy password"
pass "proxy: 0600 credential handed to the service, not in agent.env nor its environment, read by the packaged doctor; CA: 0644, trusted"

say "doctor on host 2: its unauthorized phone warns, and fails with --phones fail"
in_host 2 device-agent doctor >"$run/doctor-2.log" 2>&1 || fail "doctor on host 2 failed: $(grep -E '^\[(FAIL|WARN)\]' "$run/doctor-2.log")"
has '^\[WARN\] device .*: unauthorized' <"$run/doctor-2.log" || fail "doctor on host 2 shows no warning for the unauthorized phone"
if in_host 2 device-agent doctor --phones fail >"$run/doctor-2-fail.log" 2>&1; then fail "doctor --phones fail passed on host 2"; fi
has '^\[FAIL\] device .*: unauthorized' <"$run/doctor-2-fail.log" || fail "doctor --phones fail on host 2 names no failed phone"
pass "packaged doctor: exit 0 with [WARN] for the unauthorized phone; --phones fail: exit 1, [FAIL]"

say "as root, device-agent once runs as the service does"
# A drop-in's environment file (as docs/install/proxy.md adds one) must
# reach it too: it hides a phone, which the printed body shows.
in_host 1 bash -c 'mkdir -p /etc/systemd/system/device-agent.service.d &&
  printf "[Service]\nEnvironmentFile=/etc/device-agent/extra.env\n" >/etc/systemd/system/device-agent.service.d/extra.conf &&
  echo DEVICE_AGENT_HIDDEN_DEVICES=H1PHONE1 >/etc/device-agent/extra.env && systemctl daemon-reload'
body=$(in_host 1 device-agent once --dry-run 2>"$run/dry-run.log") || fail "device-agent once --dry-run as root: $(tail -5 "$run/dry-run.log")"
printf '%s' "$body" | "$node" -e "
  let t = ''; process.stdin.on('data', (c) => (t += c)).on('end', () => {
    const b = JSON.parse(t), hidden = (u) => (b.devices.find((d) => d.udid === u) || {}).isHidden;
    if (b.nodeId !== '${node_id[1]}') { console.error('node id ' + b.nodeId + ': not the service state directory'); process.exit(1); }
    if (hidden('H1PHONE1') !== true || hidden('H1PHONE2') !== false) { console.error('the drop-in environment file was not read'); process.exit(1); }
  });" || fail "device-agent once as root did not run as the service: $body"
in_host 1 find /var/lib/device-agent/ -user root | has . && fail "device-agent once as root left root-owned files in the state directory"
in_host 1 bash -c 'rm /etc/systemd/system/device-agent.service.d/extra.conf /etc/device-agent/extra.env && systemctl daemon-reload'
pass "the service's node id, its drop-in's environment file, no root-owned file left"

# The second run, which must change nothing, is also the one with
# device_agent_postcheck_phones=fail: that setting reaches only the post-check,
# so one run shows both (one playbook run less, about 75 s of the critical path
# of .ci/run).
say "a second run changes nothing; with device_agent_postcheck_phones=fail, host 2's unauthorized phone fails it"
if playbook second -e "device_agent_version=$N" -e device_agent_batch=3 -e device_agent_postcheck_phones=fail; then
  fail "the rollout passed host 2 with its unauthorized phone and device_agent_postcheck_phones=fail"
fi
for h in "${hosts[@]}"; do
  [ "$(changed_of second "lab-host-$h")" = 0 ] || fail "the second run changed lab-host-$h: $(grep -E '^changed:' "$run/ansible-second.log" | head -5)"
done
summary_of second lab-host-4 | has '^lab-host-4: unreachable, not changed$' || fail "the second run's summary does not name lab-host-4 as unreachable: $(summary_of second lab-host-4)"
summary_of second lab-host-2 | has '^lab-host-2: FAILED at "Run device-agent doctor"' || fail "host 2 did not fail at doctor: $(summary_of second lab-host-2)"
for h in 1 3; do summary_of second "lab-host-$h" | has "^lab-host-$h: runs $N, checked" || fail "host $h: $(summary_of second "lab-host-$h")"; done
pass "changed=0 on every host; host 2 failed at doctor beside hosts 1 and 3, which passed; the run failed"

say "what the role refuses, before it changes anything"
kept=$(for h in "${hosts[@]}"; do in_host "$h" sha256sum /etc/device-agent/agent.env; done)
if playbook newline -e "device_agent_version=$N" -e device_agent_batch=3 \
  -e '{"device_agent_settings": {"DEVICE_AGENT_SCHEDULE": "*/20 * * * * *\nNODE_TLS_REJECT_UNAUTHORIZED=0"}}'; then
  fail "a setting with a line break was taken"
fi
has 'A value with a line break in DEVICE_AGENT_SCHEDULE: agent.env takes one variable a line' <"$run/ansible-newline.log" ||
  fail "no clear refusal of the line break: $(grep -m3 -E 'fatal|msg' "$run/ansible-newline.log")"
if playbook secret-setting -e "device_agent_version=$N" -e device_agent_batch=3 \
  -e "{\"device_agent_settings\": {\"DEVICE_AGENT_HTTPS_PROXY\": \"http://lab-proxy:$PROXY_PW@127.0.0.1:3128\"}}"; then
  fail "a proxy with its password in device_agent_settings was taken"
fi
has 'a proxy (its password) in device_agent_https_proxy' <"$run/ansible-secret-setting.log" || fail "no clear refusal of the proxy setting: $(grep -m3 -E 'fatal|msg' "$run/ansible-secret-setting.log")"
[ "$(for h in "${hosts[@]}"; do in_host "$h" sha256sum /etc/device-agent/agent.env; done)" = "$kept" ] || fail "a refused run changed agent.env"
for h in "${hosts[@]}"; do in_host "$h" cat /etc/device-agent/agent.env | has NODE_TLS && fail "host $h: the injected line is in agent.env"; done
if playbook too-many-down -e "device_agent_version=$N1" -e device_agent_max_unreachable_percentage=10; then fail "the rollout started with more hosts down than allowed"; fi
has '1 of 4 hosts cannot be reached (lab-host-4), more than device_agent_max_unreachable_percentage (10 %) allows' <"$run/ansible-too-many-down.log" ||
  fail "no clear stop for too many hosts down: $(grep -m3 -E 'fatal|msg' "$run/ansible-too-many-down.log")"
for h in "${hosts[@]}"; do [ "$(in_host "$h" dpkg-query -W -f '${Version}' device-agent)" = "$N" ] || fail "host $h changed although the rollout did not start"; done
pass "a line break and a proxy in device_agent_settings refused with one clear line, too many hosts down stops before the first: nothing changed"

say "a repository key other than the one that signs it stops the host at the repository's index"
# Another lab's key given for this repository (an operator's mistake, or a
# repository that is not the lab's): host 1 alone, the upgrade to N+1.
pid1=$(unit 1 device-agent MainPID)
if playbook wrong-key -e "device_agent_version=$N1" -e device_agent_hosts=lab-host-1 -e "device_agent_repository_key=$run/keys/other.gpg"; then
  fail "the rollout installed from a repository whose signature the given key does not verify"
fi
summary_of wrong-key lab-host-1 | has "^lab-host-1: FAILED at \"Read the repository's index\", left on $N" || fail "the summary of host 1: $(summary_of wrong-key lab-host-1)"
has 'NO_PUBKEY' <"$run/ansible-wrong-key.log" || fail "the failure does not say the signature's key is unknown: $(grep -m3 -E 'fatal|msg' "$run/ansible-wrong-key.log")"
[ "$(in_host 1 dpkg-query -W -f '${Version}' device-agent)" = "$N" ] && [ "$(unit 1 device-agent MainPID)" = "$pid1" ] || fail "host 1 changed although its repository was refused"
pass "host 1 failed at the repository's index (NO_PUBKEY), still on $N, its agent untouched (the next run puts the lab's key back)"

# What each host runs before a run, to compare after it.
declare -A agent_pid kept
remember_hosts() {
  for h in "${hosts[@]}"; do
    agent_pid[$h]=$(unit "$h" device-agent MainPID)
    kept[$h]=$(in_host "$h" sha256sum /etc/device-agent/agent.env /etc/device-agent/api-key)
  done
}
# A host a run moved to version V: checked (check_host), its agent restarted
# cleanly, its adb server, settings and key untouched, no phone shown gone.
check_rolled() { # h V T0 label
  local h=$1 label=$4
  check_host "$h" "$2" "$3" "$label"
  [ "$(unit "$h" device-agent MainPID)" != "${agent_pid[$h]}" ] || fail "host $h ($label): the agent was not restarted"
  [ "$(unit "$h" device-agent-adb MainPID)" = "${adb_pid[$h]}" ] || fail "host $h ($label): the adb server was restarted"
  [ "$(unit "$h" device-agent NRestarts)" = 0 ] || fail "host $h ($label): the agent crashed and was restarted"
  [ "$(in_host "$h" sha256sum /etc/device-agent/agent.env /etc/device-agent/api-key)" = "${kept[$h]}" ] || fail "host $h ($label): agent.env or the key changed"
  # The old process stopped as on SIGTERM, its report in flight finished, not killed.
  in_host "$h" journalctl --no-pager -o cat -u device-agent _PID="${agent_pid[$h]}" | has '"msg":"device-agent stopped"' ||
    fail "host $h ($label): the agent of the old version did not stop cleanly"
  never_gone "$h"
}

say "upgrade to $N1, one host at a time (the default batch)"
remember_hosts
t0=$(host_ms 1)
playbook upgrade -e "device_agent_version=$N1" || fail "the upgrade failed: $(tail -30 "$run/ansible-upgrade.log")"
batches_of upgrade | has '^3$' || fail "the upgrade ran in $(batches_of upgrade) batches, not 3"
down_named upgrade
for h in "${hosts[@]}"; do check_rolled "$h" "$N1" "$t0" upgrade; done
pass "all 3 hosts on $N1: same node ids, adb servers untouched, no phone shown gone"

# The rollback to N in batches of two, while host 2's cloud answers 503: host
# 1 is rolled back and checked; host 2 fails its post-check beside it; a
# batch where one of two fails ends the play (max_fail_percentage 0), so host
# 3, in the next batch, keeps N+1. (A rollback all at once is the same role
# with device_agent_batch=3, as the fresh install and the second run are.)
say "rollback to $N in batches of two: a host whose post-check fails stops it"
bed_host=2
bed POST '/fail?status=503' >/dev/null || fail "could not make host 2's cloud fail"
remember_hosts
t0=$(host_ms 1)
if playbook staged -e "device_agent_version=$N" -e device_agent_batch=2; then fail "the rollout went on although host 2's post-check cannot pass"; fi
grep -A3 'Wait for its first report to be delivered' "$run/ansible-staged.log" | has '^fatal: \[lab-host-2\]' || fail "host 2 did not fail at the report check: $(tail -30 "$run/ansible-staged.log")"
check_rolled 1 "$N" "$t0" rollback
got=$(in_host 2 dpkg-query -W -f '${Version}' device-agent)
[ "$got" = "$N" ] || fail "host 2, which failed its post-check, runs $got, not $N"
got=$(in_host 3 dpkg-query -W -f '${Version}' device-agent)
[ "$got" = "$N1" ] || fail "host 3, after the failed one, was changed to $got"
[ "$(in_host 3 device-agent --version | head -1)" = "device-agent $N1" ] || fail "host 3 does not run $N1"
bed_host=3
wait_put "$t0" "p.version !== '$N1'" 1 >/dev/null && fail "host 3's cloud got a report of another version"
summary_of staged lab-host-2 | has "^lab-host-2: FAILED at \"Wait for its first report to be delivered (/healthz)\", left on $N" || fail "the summary of host 2: $(summary_of staged lab-host-2)"
summary_of staged lab-host-3 | has "^lab-host-3: not started (the rollout stopped before it), left on $N1\$" || fail "the summary of host 3: $(summary_of staged lab-host-3)"
summary_of staged lab-host-1 | has "^lab-host-1: runs $N, checked" || fail "the summary of host 1: $(summary_of staged lab-host-1)"
case "$(changed_of staged lab-host-3)" in '' | 0) ;; *) fail "the failed rollout changed host 3" ;; esac
bed_host=2
bed POST /heal >/dev/null
for h in "${hosts[@]}"; do never_gone "$h"; done
pass "host 1 back on $N (same node id, adb server untouched, no phone shown gone) beside host 2, which failed its post-check; host 3, in the next batch, kept $N1"

say "remove keeps configuration and state, purge removes them"
# Host 1 runs N after the rollback; the reinstall takes it from the repository.
h=1
in_host $h apt-get remove -y -qq device-agent >"$run/remove.log" 2>&1 || fail "apt-get remove: $(tail "$run/remove.log")"
for u in device-agent device-agent-adb; do [ "$(in_host $h systemctl is-active $u || true)" = inactive ] || fail "$u still runs after remove"; done
for f in /etc/device-agent/agent.env /etc/device-agent/api-key /var/lib/device-agent/node-id /var/lib/device-agent-adb/.android/adbkey; do
  in_host $h test -e "$f" || fail "remove deleted $f"
done
in_host $h getent passwd device-agent-adb >/dev/null || fail "remove deleted the user"
t0=$(host_ms $h)
in_host $h apt-get install -y -qq "device-agent=$N" >"$run/reinstall.log" 2>&1 || fail "reinstall: $(tail "$run/reinstall.log")"
bed_host=$h
wait_put "$t0" "p.nodeId === '${node_id[$h]}' && p.version === '$N'" 60 >/dev/null || fail "after remove and reinstall the agent did not report with its node id"
pass "remove stopped both services and kept settings, key, node id and adb key; reinstalled, the host reported as before"
# What the proxy guide has an operator make by hand: the proxy's environment file (it holds the password) and the
# `systemctl edit` drop-in naming it.
in_host $h bash -c 'install -m 0600 /dev/null /etc/device-agent/proxy.env && mkdir -p /etc/systemd/system/device-agent.service.d &&
  printf "[Service]\nEnvironmentFile=/etc/device-agent/proxy.env\n" >/etc/systemd/system/device-agent.service.d/override.conf' || fail "could not make proxy.env and its drop-in"
in_host $h dpkg --purge device-agent >"$run/purge.log" 2>&1 || fail "purge: $(tail "$run/purge.log")"
for f in /etc/device-agent /etc/systemd/system/device-agent.service.d /var/lib/device-agent /var/lib/private/device-agent /var/lib/device-agent-adb /usr/lib/systemd/system/device-agent.service; do
  in_host $h test ! -e "$f" || fail "purge left $f"
done
in_host $h getent passwd device-agent-adb >/dev/null && fail "purge left the user device-agent-adb"
pass "purge removed configuration, key, state, adb key and the user, and the proxy file and drop-in the proxy guide has one make"
# As a host that never had it: the role's key, source and the repository's index go too.
in_host $h bash -c 'rm -f /etc/apt/keyrings/device-agent.gpg /etc/apt/sources.list.d/device-agent.sources && rm -rf /var/lib/apt/lists/*'

say "a newcomer follows the README's one-host install on the purged host"
# The commands are read from the README itself, so that what it shows is
# what runs: its install lines, up to apt-get install (the repository's URL
# and its key's sum in them are examples: this run's), then, once the
# unconfigured install is checked, the rest with 'editor' setting the two
# variables the README says to set and the key typed at the prompt (stdin).
readme_block=$(awk '/^### One host: the Debian package/{f=1} f&&/^```sh/{g=1;next} g&&/^```/{exit} g' "$repo/README.md")
[ "$(printf '%s\n' "$readme_block" | wc -l)" -ge 5 ] || fail "the README's one-host block was not found"
install_lines=$(awk '{ print } /apt-get install device-agent/ { exit }' <<<"$readme_block")
rest=${readme_block#"$install_lines"}
[ "$rest" != "$readme_block" ] && has 'apt-get install device-agent' <<<"$install_lines" || fail "the README's one-host block has no apt-get install device-agent: $readme_block"
has 'apt-helper download-file https://apt.lab.example/device-agent/device-agent.gpg /etc/apt/keyrings/device-agent.gpg SHA256:KEY-SHA256' <<<"$install_lines" ||
  fail "the README does not fetch the key by its sum as docs/install/repository.md does: $install_lines"
install_lines=${install_lines//https:\/\/apt.lab.example\/device-agent/http://$(gw_of $h):$apt_port}
install_lines=${install_lines//KEY-SHA256/$key_sha}
in_host $h bash -euc "cd /root && $install_lines" >"$run/unconfigured.log" 2>&1 || fail "the README's install lines: $(tail "$run/unconfigured.log")"
# The one W: line repository.md names as harmless: the key's download as root.
has "^W: Download is performed unsandboxed as root as file '/etc/apt/keyrings/device-agent.gpg' couldn't be accessed by user '_apt'" <"$run/unconfigured.log" ||
  fail "the key's download did not print the W: line repository.md names: $(grep '^W:' "$run/unconfigured.log")"
[ "$(in_host $h dpkg-query -W -f '${Version}' device-agent)" = "$N1" ] || fail "the README's apt-get install did not install the newest version, $N1"
[ "$(in_host $h systemctl is-active device-agent-adb || true)" = active ] || fail "the adb server did not start on a fresh install"
[ "$(in_host $h systemctl is-active device-agent || true)" = inactive ] || fail "the agent is $(in_host $h systemctl is-active device-agent) on an install without configuration"
[ "$(unit $h device-agent ConditionResult)" = no ] || fail "the agent was not held back by its start condition"
in_host $h systemctl is-enabled device-agent | has '^enabled$' || fail "the agent is not enabled for when it is configured"
pass "installed $N1, the newest, as the README says, without configuration: adb runs, the agent is enabled but not started (no API key), not failed"
# The phones were attached to the adb server the purge stopped: plug them into the new one,
# as a person does after installing.
bed_host=$h
bed POST "/connect?serials=$(phones_of $h)" >/dev/null || fail "could not connect host $h's phones to the new adb server"
t0=$(host_ms $h)
printf '%s\n' "$KEY" | in_host $h bash -c "set -e
editor() { printf '%s\n' 'DEVICE_AGENT_BASE_URL=http://127.0.0.1:8080/v1' 'DEVICE_AGENT_USERNAME=agent@example.test' >> \"\$1\"; }
cd /root
$rest" >"$run/readme.log" 2>&1 || fail "the README's one-host commands: $(tail "$run/readme.log")"
[ "$(in_host $h stat -c %a /etc/device-agent/api-key)" = 600 ] || fail "the README's key file is not 0600"
wait_put "$t0" "p.version === '$N1' && ['H${h}PHONE1','H${h}PHONE2'].every((u) => status(p, u) === 'AVAILABLE')" 60 >/dev/null ||
  fail "after the README's one-host steps the agent did not report its phones: $(tail "$run/readme.log")"
pass "the README's one-host steps end with a running service whose doctor passes and that reports both phones"

say "the API key and the proxy password are in no log"
for h in "${hosts[@]}"; do
  in_host "$h" journalctl --no-pager -o cat | has "$KEY" && fail "host $h: the key is in the journal"
  in_host "$h" journalctl --no-pager -o cat | has "$PROXY_PW" && fail "host $h: the proxy password is in the journal"
done
cat "$run"/ansible-*.log | has "$KEY" && fail "the key is in Ansible's output"
cat "$run"/ansible-*.log | has "$PROXY_PW" && fail "the proxy password is in Ansible's output (--diff)"
pass "neither in any host's journal nor in Ansible's output, with --diff"

say "rollout checks passed"
echo "rollout: $passed passed, 0 failed ($((SECONDS - started)) s)"
