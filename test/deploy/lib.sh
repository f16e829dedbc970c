# Shared by the deploy checks (sourced after setting $here): where things
# are, progress lines, the pass count, the cached Debian 12 base, and waiting
# for a report at the cloud double of test/deploy/bed.ts. The script that
# sources it defines `fail MESSAGE` and `bed_node SCRIPT`, which runs
# `node -e SCRIPT` where the bed's control port is 127.0.0.1:$bed_port
# (inside the box, in a host's network namespace, or here).

repo=$(cd "$here/../.." && pwd)
work=${DEPLOY_WORK:-/var/tmp/device-agent-deploy}
# A minimal Debian 12 with systemd, made once per machine and kept in $work.
base=$work/bookworm-base
# The Node 24 of `npm ci` on this host.
node=$repo/node_modules/node/bin/node

started=$SECONDS
passed=0
say() { printf '\n== %s (%d s)\n' "$*" $((SECONDS - started)); }
pass() {
  passed=$((passed + 1))
  echo "ok: $*"
}
# `producer | has PATTERN`: true when the producer's output matches. Not
# `grep -q`: under pipefail, grep -q leaving at the first match kills the
# producer with SIGPIPE and the pipeline fails although the line is there
# (a false FAIL, or a false pass where the check is `&& fail`).
has() { grep -c -e "$1" >/dev/null; }
# A command whose failure the check does not test ends it (set -e), and it
# used to end without a word: stop 49's rollout check died on a `| head -1`
# (SIGPIPE, under pipefail) with no FAIL line, so nobody could tell which step
# broke. This names the line and the command, through the check's own fail,
# which adds what it knows (the hosts' journals). Functions do not inherit it:
# set -E would fire it in every $(...) whose failure is expected.
trap 'rc=$?; fail "line $LINENO of ${0##*/}: \`$BASH_COMMAND\` ended with status $rc, which the check does not expect"' ERR

ensure_base() {
  mkdir -p "$work"
  # .ci/run runs the deploy checks side by side: the first to get here makes
  # the base, the others wait for it rather than debootstrap into one place.
  exec {base_lock}>"$work/bookworm-base.lock"
  flock "$base_lock"
  if [ -x "$base/usr/bin/systemctl" ]; then
    flock -u "$base_lock"
    return 0
  fi
  say "debootstrap Debian 12 (kept in $base)"
  rm -rf "$base.tmp"
  debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus,ca-certificates,libpam-systemd bookworm "$base.tmp" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    fail "debootstrap failed: $(tail -5 "$work/debootstrap.log")"
  mv "$base.tmp" "$base"
  flock -u "$base_lock"
}

# fresh_root DIR: a new system at DIR, the base under an overlay whose
# changes go to DIR.upper. A copy of the base took 26 s on a quiet machine
# and minutes beside the other deploy checks; the overlay is instant.
# unmount_roots (on exit) takes them down again.
roots=()
fresh_root() {
  local dir=$1
  if mountpoint -q "$dir"; then umount "$dir"; fi
  rm -rf "$dir" "$dir.upper" "$dir.work"
  mkdir -p "$dir" "$dir.upper" "$dir.work"
  mount -t overlay overlay -o "lowerdir=$base,upperdir=$dir.upper,workdir=$dir.work" "$dir" || fail "could not mount an overlay of $base at $dir"
  roots+=("$dir")
  # A throwaway system need not survive a power cut mid-install, so dpkg
  # skips its fsync per file (dpkg's force-unsafe-io, usual in container
  # builds): with it, the ~470 packages of README step 1 took minutes beside
  # the other checks. What is installed, and how, is the same.
  echo force-unsafe-io >"$dir/etc/dpkg/dpkg.cfg.d/ci-unsafe-io"
}
# reuse_root DIR: the system fresh_root made at DIR, with the changes an
# earlier run made to it (systemd.sh's install part, in test/deploy/prepare.sh).
reuse_root() {
  local dir=$1
  if mountpoint -q "$dir"; then umount "$dir"; fi
  [ -d "$dir.upper" ] && [ -d "$dir.work" ] || fail "no earlier system at $dir to go on with"
  mount -t overlay overlay -o "lowerdir=$base,upperdir=$dir.upper,workdir=$dir.work" "$dir" || fail "could not mount the overlay of $base at $dir again"
  roots+=("$dir")
}
unmount_roots() {
  local dir
  for dir in "${roots[@]}"; do if mountpoint -q "$dir"; then umount "$dir" || umount -l "$dir"; fi; done
}

# bed METHOD PATH: asks the bed's control port; prints its answer, fails
# unless it is a 2xx.
bed() {
  bed_node "fetch('http://127.0.0.1:$bed_port$2', { method: '$1' }).then(async (r) => { process.stdout.write(await r.text()); process.exit(r.ok ? 0 : 1); }, () => process.exit(2))"
}

# wait_put SINCE_MS JS_PREDICATE [TIMEOUT_S]: waits for a PUT /devices
# received after SINCE_MS that the cloud answered 200 and for which the
# predicate on p (receivedAt, nodeId, devices: udid, status, message;
# status(p, udid) and message(p, udid) are helpers) holds; prints it as JSON. One process asks the bed every half
# second, until TIMEOUT_S seconds have passed and it has asked at least
# 2 * TIMEOUT_S times (as the loop before it did, so that a loaded machine
# stretches the wait as it did that loop's). That loop started two Node
# processes a poll, about 0.25 CPU s each half second of every wait, in the
# three checks that .ci/run runs side by side beside the soaks.
wait_put() {
  local since=$1 predicate=$2 timeout=${3:-60}
  bed_node "
    const status = (p, u) => (p.devices.find((d) => d.udid === u) || {}).status;
    const message = (p, u) => (p.devices.find((d) => d.udid === u) || {}).message || '';
    const end = Date.now() + $timeout * 1000;
    const hitIn = (all) => {
      try {
        return Array.isArray(all) ? all.find((p) => p.receivedAt >= $since && p.status === 200 && (${predicate})) : undefined;
      } catch {
        return undefined;
      }
    };
    (async () => {
      for (let asked = 1; ; asked++) {
        let all;
        try {
          all = await (await fetch('http://127.0.0.1:$bed_port/puts', { signal: AbortSignal.timeout(5000) })).json();
        } catch {}
        const hit = hitIn(all);
        if (hit) return void process.stdout.write(JSON.stringify(hit) + '\\n');
        if (Date.now() >= end && asked >= 2 * $timeout) process.exit(1);
        await new Promise((r) => setTimeout(r, 500));
      }
    })();"
}

# wait_put, where the bed connects the phones to an adb server systemd runs: Debian's adb aborted in CI while the
# bed connected them ("fdevent_epoll.cpp:88] failed to unregister fd ... Bad file descriptor", SIGABRT: the systemd
# check at a8a583c, the rollout's host 1 at b4bafe9 and again at f5a17de9). systemd restarted it, and a restarted adb
# forgets phones reached with `adb connect`, where USB phones would come back by themselves: so when the bed finds one
# of its phones unlisted (its /ready), the bed connects them again, and when the unit's automatic restarts grew, the
# check says so. Not by the restarts alone: at f5a17de9 adb aborted before the wait began, so the count it started
# from already held that restart and the phones stayed away. Every caller waits for all the bed's phones.
# The script defines adb_restarts (the unit's NRestarts), adb_last_words and bed_phones (the serials).
wait_phones() {
  local since=$1 predicate=$2 timeout=$3 end=$((SECONDS + $3)) seen found
  seen=$(adb_restarts)
  while [ $SECONDS -lt $end ]; do
    if found=$(wait_put "$since" "$predicate" 5); then
      printf '%s\n' "$found"
      return 0
    fi
    bed GET /ready >/dev/null 2>&1 && continue
    if [ "$(adb_restarts)" != "$seen" ]; then
      seen=$(adb_restarts)
      echo "note: the adb server stopped and systemd restarted it (NRestarts $seen; its last lines: $(adb_last_words))" >&2
    fi
    echo "note: adb does not list every phone of the bed; the bed connects them again" >&2
    bed POST "/connect?serials=$(bed_phones)" >/dev/null || true
  done
  return 1
}

# wait_placed UDID PORT METRICS CLOCK [TIMEOUT_S]: waits until the agent has
# placed the phone on the USB port, which is what it reports a phone off
# adb on that port by: the port as the phone's usb label on /metrics (its
# source's path, `adb devices -l`, read), then two reports that list the
# phone after that, the later one composed after the path was read (a
# report is not composed while one is in flight), and linked by it.
# METRICS prints the agent's /metrics, CLOCK the bed's time in ms (the
# script's own functions).
wait_placed() {
  local udid=$1 port=$2 metrics=$3 clock=$4 timeout=${5:-60} i seen= since hit
  for ((i = 0; i < timeout * 2; i++)); do
    if "$metrics" 2>/dev/null | grep '^device_agent_device_info{' | grep -F "udid=\"$udid\"" | has "usb=\"$port\""; then
      seen=1
      break
    fi
    sleep 0.5
  done
  [ -n "$seen" ] || return 1
  since=$("$clock")
  hit=$(wait_put "$since" "status(p, '$udid') === 'AVAILABLE'" "$timeout") || return 1
  since=$(printf '%s' "$hit" | "$node" -e "let t='';process.stdin.on('data',(c)=>t+=c).on('end',()=>process.stdout.write(String(JSON.parse(t).receivedAt + 1)))")
  wait_put "$since" "status(p, '$udid') === 'AVAILABLE'" "$timeout" >/dev/null
}

# The nodeId of a PUT printed by wait_put, read from standard input.
node_id_of() { "$node" -e "let t='';process.stdin.on('data',(c)=>t+=c).on('end',()=>process.stdout.write(JSON.parse(t).nodeId))"; }

# never_reported UDID STATUS FROM_MS TO_MS: true when no PUT the bed got from
# FROM_MS up to (not including) TO_MS reported UDID with STATUS. False, it
# prints why for the caller's FAIL line (the one line CI's tail is sure to
# show): what each PUT of that window said of UDID (ms after FROM_MS, its
# status, and the message of each with STATUS), or that the bed's PUTs could
# not be read, asked 5 times (so a check never passes unread, and a bed slow
# to answer once is not taken for a report).
never_reported() {
  bed_node "
    (async () => {
      let all, error;
      for (let asked = 1; asked <= 5 && all === undefined; asked++) {
        try {
          all = await (await fetch('http://127.0.0.1:$bed_port/puts', { signal: AbortSignal.timeout(5000) })).json();
        } catch (err) {
          error = err;
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      if (!Array.isArray(all)) return void process.stdout.write('the bed\\'s PUTs could not be read (' + String(error) + ')'), process.exit(1);
      const seen = all.filter((p) => p.receivedAt >= $3 && p.receivedAt < $4).map((p) => [p.receivedAt - $3, p.devices.find((d) => d.udid === '$1')]);
      if (!seen.some(([, d]) => d && d.status === '$2')) return;
      const said = seen.map(([ms, d]) => '+' + ms + ' ms ' + (!d ? 'absent' : d.status === '$2' ? d.status + ' (' + String(d.message ?? '').slice(0, 160) + ')' : d.status));
      process.stdout.write('reported $2; its reports from ' + $3 + ' to ' + $4 + ': ' + said.join(', '));
      process.exit(1);
    })();"
}

# await_packages DIR VERDICT [PID]: waits for packages.sh's verdict (built,
# then lintian) in DIR and fails with it unless it is "ok". PID is the
# packages.sh this check started; without one (prepare.sh ran it,
# DEPLOY_PREPARED) it waits up to 30 minutes.
await_packages() {
  local dir=$1 name=$2 pid=${3:-} waited=0
  until [ -s "$dir/$name" ]; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      [ -s "$dir/$name" ] || fail "packages.sh ended without its $name verdict: $(tail -5 "$dir.log" 2>/dev/null)"
      break
    fi
    [ "$waited" -lt 3600 ] || fail "no $name verdict from packages.sh in $dir after 30 minutes"
    sleep 0.5
    waited=$((waited + 1))
  done
  [ "$(cat "$dir/$name")" = ok ] || fail "packages ($name): $(cat "$dir/$name")"
}

# make_signing_key HOME NAME LOG: a repository signing key made by
# docs/install/repository.md's own step ("Make the signing key", 1), in the
# GnuPG home HOME instead of /root's, NAME in its uid; prints its
# fingerprint, gpg's lines go to LOG. The caller stops HOME's gpg-agent
# when it ends (GNUPGHOME=HOME gpgconf --kill all).
make_signing_key() {
  local step
  step=$("$node" "$repo/dist/test/deploy/readme-steps.js" "$repo/docs/install/repository.md" '## Make the signing key' 1)
  step=${step//\/root\/device-agent-signing/$1}
  bash -euc "${step//Example Lab/$2}" 2>>"$3" | tail -n 1
}
