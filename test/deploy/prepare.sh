#!/usr/bin/env bash
# What the deploy checks can have made before them, none of it with a
# deadline, into DIR:
#   bash test/deploy/prepare.sh DIR
# - the packages systemd.sh's package part and rollout.sh install, and
#   lintian's verdict on them (packages.sh);
# - the README's Build and test in a fresh Debian 12, and the checkout's
#   steps 1 and 2 in another (systemd.sh with DEPLOY_PART=install), whose
#   system the checkout part then boots (DIR/installed says it is there);
# - the image's layers, which podman keeps (container.sh with
#   DEPLOY_PART=image), so that the container check's own `npm run image`
#   later in the run finds them made.
# .ci/run runs it niced beside `npm test`'s e2e tier, which leaves most of a
# core idle, and hands DIR to the checks as DEPLOY_PREPARED. Beside the
# other checks and the soaks, where the two cores were short, the packages
# took 126 s of the rollout's 506 and lintian 40 s more, README steps 1 and
# 2 275 s of the checkout part's 354, and the image 199 s of the container
# check's 304 (CI34; git log of this file). What fails here is
# left to the check, which makes it again and says why it fails; only the
# packages' verdicts are read as they are.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: prepare.sh DIR}
started=$SECONDS
status=0
bash "$here/packages.sh" "$dir" || status=$?
echo "prepare: packages $([ "$status" = 0 ] && echo built and linted || echo failed) in $((SECONDS - started)) s"
install_started=$SECONDS
if DEPLOY_PART=install bash "$here/systemd.sh" >"$dir.install.log" 2>&1; then
  echo ok >"$dir/installed"
  echo "prepare: the README's Build and test, and README steps 1 and 2, in fresh Debian 12 systems in $((SECONDS - install_started)) s"
else
  echo "prepare: the README's Build and test, or README steps 1 and 2, failed ($(tail -3 "$dir.install.log" | tr '\n' ' ')); the checkout part runs them again"
fi
image_started=$SECONDS
if DEPLOY_PART=image bash "$here/container.sh" >"$dir.image.log" 2>&1; then
  echo "prepare: the image built in $((SECONDS - image_started)) s"
else
  echo "prepare: the image did not build ($(tail -3 "$dir.image.log" | tr '\n' ' ')); the container check builds it again"
fi
exit "$status"
