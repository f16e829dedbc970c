#!/bin/sh
# Installs, with apt, the Debian package of each system tool the tests run
# that this host lacks (tools/system-tools.txt): the README's install
# command. As root, or through sudo when run by another user; nothing when
# every tool is there.
#   sh tools/install-system-tools.sh            the tests' tools
#   sh tools/install-system-tools.sh --deploy   and the deploy checks' (.ci/run)
#   sh tools/install-system-tools.sh --check    installs nothing; exit 1 naming what is missing
set -eu
cd "$(dirname "$0")/.."
groups=' tests '
which=tests
check=
for arg in "$@"; do
  case "$arg" in
    --deploy) groups=' tests deploy ' which='tests and deploy checks' ;;
    --check) check=1 ;;
    *) echo "usage: sh tools/install-system-tools.sh [--deploy] [--check]" >&2 && exit 2 ;;
  esac
done
# nginx and squid are in /usr/sbin, off a user's PATH on Debian.
PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
missing=$(grep -v -e '^#' -e '^$' tools/system-tools.txt | while read -r tools package group _; do
  case "$groups" in *" $group "*) ;; *) continue ;; esac
  for tool in $(echo "$tools" | tr , ' '); do command -v "$tool" >/dev/null 2>&1 || echo "$package"; done
done | sort -u | tr '\n' ' ')
if [ -z "$missing" ]; then
  echo "install-system-tools: every tool of the $which is there (tools/system-tools.txt)"
  exit 0
fi
if [ -n "$check" ]; then
  echo "install-system-tools: the $which miss the tools of the Debian packages $missing(tools/system-tools.txt)" >&2
  exit 1
fi
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || {
    echo "install-system-tools: apt-get needs root to install $missing: run this as root (su -), or install sudo" >&2
    exit 1
  }
  exec sudo sh tools/install-system-tools.sh "$@"
fi
echo "install-system-tools: installing $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086 # one word a package
apt-get install -y -qq $missing
