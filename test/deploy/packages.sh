#!/usr/bin/env bash
# The packages the deploy checks install, built once: N for amd64 and arm64
# and N+1 for amd64 (packaging/deb/build.sh, which is `npm run package`
# without its build of dist/), then lintian on N's two packages.
#   bash test/deploy/packages.sh DIR
# DIR gets the packages, DIR/versions ("N N+1", the versions built), and
# two verdicts, each written whole once it is known: DIR/built ("ok", or
# what failed), then DIR/lintian ("ok", or lintian's errors and warnings). A check waits for the verdict it needs
# (await_packages in lib.sh), so it can boot its hosts while lintian reads.
#
# rollout.sh runs it when nothing built them before it; in CI prepare.sh
# runs it, niced, beside the e2e tier, for rollout.sh and systemd.sh's
# package part (DEPLOY_PREPARED names DIR).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
node=$repo/node_modules/node/bin/node
dir=${1:?usage: packages.sh DIR}

verdict() { # name text: DIR/name, whole or not at all
  printf '%s\n' "$2" >"$dir/.$1.tmp"
  mv "$dir/.$1.tmp" "$dir/$1"
}
refuse() { # the build failed: say so to whoever waits, and here
  verdict built "$*"
  verdict lintian "not run: the build failed"
  echo "packages: $*" >&2
  exit 1
}

rm -rf "$dir"
mkdir -p "$dir"
[ -f "$repo/dist/packaging/version-cli.js" ] || refuse "dist/ is missing: run npm test or npm run build first"
N=$("$node" -p "require('$repo/package.json').version")
N1=$("$node" "$repo/dist/packaging/version-cli.js" next "$N")
# One after the other: side by side (in two directories) they were not
# shown faster in CI, where the other checks and the soaks kept the two
# cores busy (git log of this file).
(cd "$repo" && bash packaging/deb/build.sh --arch all --out "$dir") >"$dir/build-N.log" 2>&1 ||
  refuse "building $N: $(tail -20 "$dir/build-N.log")"
# A line per step (issue 70): a build said nothing for minutes.
for step in 'the production dependencies' 'amd64: the Node.js' "amd64: the package's files" 'amd64: dpkg-deb' 'arm64: the Node.js' 'arm64: dpkg-deb'; do
  grep -q "^package: $step.* ([0-9]* s)$" "$dir/build-N.log" || refuse "the build printed no progress line for '$step': $(grep '^package:' "$dir/build-N.log")"
done
(cd "$repo" && bash packaging/deb/build.sh --version "$N1" --out "$dir") >"$dir/build-N1.log" 2>&1 ||
  refuse "building $N1: $(tail -20 "$dir/build-N1.log")"
for deb in "device-agent_${N}_amd64.deb" "device-agent_${N}_arm64.deb" "device-agent_${N1}_amd64.deb"; do
  [ -s "$dir/$deb" ] || refuse "no $deb"
  (cd "$dir" && sha256sum -c --quiet "$deb.sha256") || refuse "$deb does not match its .sha256"
done
arch=$(dpkg-deb -f "$dir/device-agent_${N}_arm64.deb" Architecture)
[ "$arch" = arm64 ] || refuse "the arm64 package says it is for $arch"
# The versions built, for the checks: N+1 is the date's, and a run that
# passes midnight would compute another one than was built.
verdict versions "$N $N1"
verdict built ok
built=$SECONDS

# lintian reads both packages whole: the two at once took 34 s on a quiet machine (11-27).
pids=()
for deb in "device-agent_${N}_amd64.deb" "device-agent_${N}_arm64.deb"; do
  lintian --fail-on error,warning "$dir/$deb" >"$dir/lintian-$deb.log" 2>&1 &
  pids+=($!)
done
bad=
for i in 0 1; do
  deb=$([ "$i" = 0 ] && echo "device-agent_${N}_amd64.deb" || echo "device-agent_${N}_arm64.deb")
  wait "${pids[$i]}" || bad+="$deb: $(grep -E '^[EW]:' "$dir/lintian-$deb.log" | head -20 || tail -5 "$dir/lintian-$deb.log") "
done
verdict lintian "${bad:-ok}"
[ -z "$bad" ] || exit 1
echo "packages: built in $built s, lintian passed $((SECONDS - built)) s later"
