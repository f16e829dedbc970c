#!/usr/bin/env -S node --max-semi-space-size=1
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install`).
// Small V8 semi-spaces keep the daemon's resident memory down (README, Performance).
import { main } from '../dist/src/cli/main.js';

// Exit explicitly: an adb connection or HTTP keep-alive socket must not keep a
// finished one-shot run alive (stdout and stderr writes are synchronous on Linux).
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`device-agent: unexpected failure: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  },
);
