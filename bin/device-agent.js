#!/usr/bin/env -S node --max-semi-space-size=1
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install`).
// Small V8 semi-spaces keep the daemon's resident memory down (README, Performance).
//
// Everything before the runtime check is plain enough for any Node.js that
// can load an ES module, so that an old one is told what is wrong instead of
// failing on a flag or a syntax it does not know.
import { readFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// The major version of the pinned runtime (the `node` devDependency, which
// the Debian package ships too). Not package.json engines: npm would then
// warn about its own, older Node whenever npx links the checkout.
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const needed = Number(pkg.devDependencies.node.split('.')[0]);
const running = Number(process.versions.node.split('.')[0]);
if (running < needed) {
  process.stderr.write(
    `device-agent: needs Node.js ${needed} or later, but ${process.execPath} is Node.js ${process.version}.\n` +
      `  Installed from the Debian package: run /usr/bin/device-agent, which brings its own Node.js ${needed}.\n` +
      `  In a checkout: run npm ci, then node_modules/.bin/node bin/device-agent.js (or npx device-agent inside the checkout).\n`,
  );
  // 2, as for a configuration error: starting again cannot help, and
  // systemd's RestartPreventExitStatus=2 leaves the unit stopped.
  process.exit(2);
}

// V8's memory saver mode collects the old generation sooner. An inventory
// reads about 50 KB per device and parses it; without this, V8 let that
// garbage pile up to about 60 MB at 200 devices before a full collection
// (`npm run bench`: RSS 160 MB at the first report, 98 MB with it, for about
// 25 % more CPU at start). Set here, before the CLI loads, so that every way
// the agent starts (systemd, the image's entrypoint, a shell) has it;
// NODE_OPTIONS does not accept this flag.
setFlagsFromString('--memory-saver-mode');
// Bytecode of a function not run over 3 full collections is dropped (V8's
// default is 6) and compiled again if it runs: what start-up alone ran
// (settings, the CLI, each module's top level) leaves the heap before the
// first report. `npm run bench`, 200 devices: RSS at the first report 0.6-2.2
// MB lower on the median of 7 or 9 rounds, the same CPU at idle and over a
// period.
setFlagsFromString('--bytecode-old-age=3');
// No optimizing compilers: the agent's work is I/O, regular expressions and
// string builtins, which no tier speeds up (the same CPU in `npm run bench`),
// while a compiler that has run keeps its code pages and output resident
// (about 9 MB, docs/performance/). V8 reads both flags whenever it would tier
// a function up. The daemon's starts (the unit, the Debian wrapper, the image)
// also give both on the command line, with their bundled Node.js: Node
// compiles its own path helpers with Maglev before this file runs, and that
// one compile left about 2 MB of the compiler resident. Not the shebang: an
// older Node.js (Debian 12's 18) refuses --no-turbofan before this file can
// say what is wrong. Set here for every other start. Memory saver mode stays
// here: given on the command line, the bench measured a higher peak and more
// CPU at start.
setFlagsFromString('--no-turbofan');
setFlagsFromString('--no-maglev');

const args = process.argv.slice(2);
if (args[0] === 'run' && process.env.npm_command !== undefined) {
  const { guardNpmParent } = await import('../dist/src/cli/npm-parent.js');
  guardNpmParent(process.env.npm_command);
}
// The version alone, as people and scripts ask for it, loads only what it prints: 0.04 s of CPU where loading the whole
// CLI takes 0.4 s. Any other way of asking (`once --version`) goes through the CLI, which says the same.
const versionOnly = args.length === 1 && ['--version', '-v', 'version'].includes(args[0]);
const { main, onOutputError } = await import(versionOnly ? '../dist/src/cli/version.js' : '../dist/src/cli/main.js');

// A reader that went away (`| head`, a closed pager) ends a one-shot run
// quietly: there is nobody left to tell. The daemon keeps reporting
// (src/cli/output-errors.ts).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    const action = onOutputError(err);
    if (action === 'exit') process.exit(process.exitCode ?? 0);
    if (action === 'throw') throw err;
  });
}

// Node writes to pipes asynchronously: exiting at once would lose what is
// still queued (`once --dry-run | jq` was cut at 64 KiB). So the exit waits
// until both streams have handed everything to the OS, then exits explicitly:
// an adb connection or HTTP keep-alive socket must not keep a finished
// one-shot run alive.
function exitWhenFlushed(code) {
  process.exitCode = code;
  let open = 2;
  const done = () => {
    if (--open === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main(args).then(exitWhenFlushed, (err) => {
  process.stderr.write(`device-agent: unexpected failure: ${err && err.stack ? err.stack : err}\n`);
  exitWhenFlushed(1);
});
