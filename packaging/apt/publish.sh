#!/usr/bin/env bash
# Adds the packages of `npm run package` to the lab's apt repository and
# publishes it signed, with Debian's aptly:
#   npm run repository -- --key FINGERPRINT [--root DIR] [--next-key FINGERPRINT] [DEB...]
# or bash packaging/apt/publish.sh with the same arguments.
#
# DIR (default dist/apt) is the repository: aptly's database and pool, kept
# from run to run (the repository holds every version added, so that a host
# can be rolled back with apt), and DIR/public, what a web server serves:
#   dists/stable/{InRelease,Release,Release.gpg}, dists/stable/main/binary-{amd64,arm64}/Packages*,
#   pool/main/d/device-agent/device-agent_VERSION_ARCH.deb, and device-agent.gpg,
#   the public key hosts verify it with (/etc/apt/keyrings/device-agent.gpg).
# DEB: default dist/deb/device-agent_VERSION_*.deb of package.json's version.
#
# The key is a GnuPG secret key in $GNUPGHOME (or gpg's default home),
# without a passphrase: how a lab makes it, where it lives, how hosts get the
# public key and how it is rotated are in docs/install/repository.md.
# --next-key publishes a second public key beside the signing one (the
# rotation's first step: hosts learn the new key before it signs).
# DEVICE_AGENT_SIGNING_KEY stands for --key.
#
# A version is published once: a DEB of a version the repository holds with
# other bytes is refused (a host that has it would not see the change).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
node=$repo/node_modules/node/bin/node
[ -x "$node" ] || node=node
root=$repo/dist/apt
key=${DEVICE_AGENT_SIGNING_KEY:-}
next_keys=()
debs=()
# The one distribution and component, as hosts' .sources name them.
suite=stable
component=main
name=device-agent
fail() {
  echo "repository: $*" >&2
  exit 1
}

while [ $# -gt 0 ]; do
  case "$1" in
    --key) key=$2; shift 2 ;;
    --next-key) next_keys+=("$2"); shift 2 ;;
    --root) root=$2; shift 2 ;;
    --*) fail "unknown option $1 (use --key FINGERPRINT, --root DIR, --next-key FINGERPRINT, then the .deb files)" ;;
    *) debs+=("$1"); shift ;;
  esac
done
for tool in aptly gpg gpgv dpkg-deb sha256sum; do
  command -v "$tool" >/dev/null || fail "$tool is missing (apt-get install aptly gnupg dpkg)"
done
[ -n "$key" ] || fail "no signing key: give --key FINGERPRINT (or DEVICE_AGENT_SIGNING_KEY), a secret key of \$GNUPGHOME; an unsigned repository is refused by apt (docs/install/repository.md, \"Make the signing key\")"
if [ ${#debs[@]} -eq 0 ]; then
  version=$("$node" -p "require('$repo/package.json').version")
  shopt -s nullglob
  debs=("$repo/dist/deb/device-agent_${version}_"*.deb)
  shopt -u nullglob
  [ ${#debs[@]} -gt 0 ] || fail "no dist/deb/device-agent_${version}_*.deb: run npm run package first (or name the .deb files)"
fi

# The key signs now, not only exists: a missing secret part, an expired or
# revoked key, or a passphrase gpg would ask for fail here with gpg's reason.
fingerprint=$(gpg --batch --with-colons --list-secret-keys -- "$key" 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }') ||
  true
[ -n "$fingerprint" ] || fail "no secret key $key in ${GNUPGHOME:-~/.gnupg} (gpg --list-secret-keys): the repository is signed on the machine that holds the key (docs/install/repository.md)"
if ! probe=$(printf 'probe\n' | gpg --batch --pinentry-mode error --local-user "$fingerprint" --clearsign 2>&1 >/dev/null); then
  fail "key $fingerprint cannot sign: $(printf '%s\n' "$probe" | grep -m1 -v '^gpg: using' || echo 'gpg said nothing')"
fi
for k in "${next_keys[@]}"; do
  gpg --batch --with-colons --list-keys -- "$k" >/dev/null 2>&1 || fail "--next-key $k: no such public key in ${GNUPGHOME:-~/.gnupg}"
done

for deb in "${debs[@]}"; do
  [ -s "$deb" ] || fail "$deb is missing"
  [ "$(dpkg-deb -f "$deb" Package 2>/dev/null)" = "$name" ] || fail "$deb is not a device-agent package"
  if [ -f "$deb.sha256" ]; then
    (cd "$(dirname "$deb")" && sha256sum -c --quiet "$(basename "$deb").sha256" >/dev/null 2>&1) || fail "$deb does not match its .sha256: rebuild it, or check where it came from"
  fi
done

mkdir -p "$root"
root=$(cd "$root" && pwd)
# aptly's settings, written each run from the arguments above.
conf=$root/aptly.conf
printf '{ "rootDir": "%s", "gpgProvider": "gpg2", "downloadSourcePackages": false }\n' "$root" >"$conf"
aptly() { command aptly -config="$conf" "$@"; }
if ! aptly repo show "$name" >/dev/null 2>&1; then
  aptly repo create -distribution="$suite" -component="$component" "$name" >/dev/null || fail "aptly could not create the repository in $root"
fi
if ! out=$(aptly repo add "$name" "${debs[@]}" 2>&1); then
  conflict=$(printf '%s\n' "$out" | sed -n 's/.*conflict in package \([^ ]*\).*/\1/p' | head -3 | tr '\n' ' ')
  [ -z "$conflict" ] || fail "${conflict% }: the repository holds this version already, with other bytes; a version is published once (npm run version:bump, then npm run package)"
  fail "aptly could not add the packages: $(printf '%s\n' "$out" | grep -m3 '^\[!\]' | tr '\n' ' ')"
fi
# Published once, then updated in place: aptly writes the new indexes and
# pool files first and switches dists/ last.
if aptly publish list -raw | grep -qx ". $suite"; then
  aptly publish update -batch -gpg-key="$fingerprint" "$suite" >"$root/publish.log" 2>&1 || fail "aptly could not publish: $(tail -3 "$root/publish.log")"
else
  aptly publish repo -batch -gpg-key="$fingerprint" -architectures=amd64,arm64 -origin="$name" -label="$name" "$name" >"$root/publish.log" 2>&1 ||
    fail "aptly could not publish: $(tail -3 "$root/publish.log")"
fi

public=$root/public
gpg --batch --export -- "$fingerprint" "${next_keys[@]}" >"$public/$name.gpg.tmp"
mv "$public/$name.gpg.tmp" "$public/$name.gpg"
# What apt will do: the signature checks against the published key alone.
gpgv --keyring "$public/$name.gpg" "$public/dists/$suite/InRelease" >/dev/null 2>&1 ||
  fail "the published InRelease does not verify against $public/$name.gpg"
versions=$(aptly repo search -format='{{.Version}} {{.Architecture}}' "$name" 'Name (device-agent)' | sort -V | awk '{ v[$1] = v[$1] (v[$1] ? "," : "") $2 } END { for (k in v) print k " (" v[k] ")" }' | sort -V | tr '\n' ' ')
echo "repository: $public, signed by $fingerprint: device-agent ${versions% }"
echo "repository: hosts' key $public/$name.gpg, sha256 $(sha256sum "$public/$name.gpg" | cut -d' ' -f1) (docs/install/repository.md)"
