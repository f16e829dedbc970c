#!/usr/bin/env bash
# The last step of `npm test`: `vitest run`, and `npm run lint` beside it,
# niced, from the moment the e2e tier starts (test/support/e2e-started.ts
# writes DEVICE_AGENT_E2E_STARTED's file) or vitest ends, whichever comes
# first; the lint's output is held and printed after vitest's. Fails if
# either fails. The lint is about 80 CPU seconds with no deadline: before
# the tests it delayed them by a minute; after them, in CI, it fell in the
# deploy checks' CPU-bound phase and slowed the rollout by 48 s of the 70 it
# saved (CI36); the e2e tier leaves the machine about 60 % idle. It waits for
# that tier rather than join the CPU-bound unit tier, which it slowed by a
# few seconds at most on Node 20 and not at all on Node 24, one run each
# (docs/design/tooling.md, "What `npm test` runs").
set -uo pipefail
cd "$(dirname "$0")/.."
# As npm runs scripts: the pinned Node 24 (the `node` devDependency) first on
# the PATH, also when this file is run by hand (vitest's `env node` would
# find the system's otherwise: Debian's Node 20 took the unit tier from 45
# to 60 s here).
PATH="$PWD/node_modules/.bin:$PATH"
lint_log=$(mktemp "${TMPDIR:-/tmp}/device-agent-lint.XXXXXX")
# .ci/run's mark, when it set one (it starts the deploy checks' preparation
# on it too), or one of our own.
own_mark=
if [ -z "${DEVICE_AGENT_E2E_STARTED:-}" ]; then
  DEVICE_AGENT_E2E_STARTED=$(mktemp -u "${TMPDIR:-/tmp}/device-agent-e2e-started.XXXXXX")
  own_mark=$DEVICE_AGENT_E2E_STARTED
  export DEVICE_AGENT_E2E_STARTED
fi
trap 'rm -f "$lint_log" ${own_mark:+"$own_mark"}' EXIT
vitest run "$@" &
tests_pid=$!
(
  while kill -0 "$tests_pid" 2>/dev/null && [ ! -e "$DEVICE_AGENT_E2E_STARTED" ]; do sleep 1; done
  exec nice -n 19 npm run lint
) >"$lint_log" 2>&1 &
lint_pid=$!
wait "$tests_pid"
tests=$?
wait "$lint_pid"
lint=$?
cat "$lint_log"
if [ "$lint" -ne 0 ]; then echo "npm run lint failed (exit $lint): its findings are above" >&2; fi
[ "$tests" -eq 0 ] && [ "$lint" -eq 0 ]
