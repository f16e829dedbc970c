// The hub helper where no systemd starts it: the container's hub service
// (docs/install/container.md, "Hub ports"). It listens on a unix socket and
// runs serve.js once per connection with the connection as its standard
// input and output, as device-agent-hub.socket (Accept=yes) does; serve.js
// does the reading, the refusing and the switching.
//   node dist/src/hub-helper/listen.js --socket PATH [serve.js's options]
// Who may ask is who may open the socket: it is made mode 0660, owned by
// this process's user and group (the hub service runs as uid 0 with the
// agent's gid, so that the agent, uid 1000 in group 1000, may connect and
// no one else without root), in a volume only the agent's container mounts.
// There are no peer credentials to check here: serve.js is not given --peer.

import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const SERVE = fileURLToPath(new URL('./serve.js', import.meta.url));
/** At most this many requests at once (a switch is rare); the server closes any more. */
const MAX_AT_ONCE = 4;

function main(argv: string[]) {
  const at = argv.indexOf('--socket');
  const socket = at >= 0 ? argv[at + 1] : undefined;
  if (!socket) {
    process.stderr.write('device-agent-hub: usage: listen.js --socket PATH [--config-if-present PATH] [--usb-sysfs DIR] [--usb-devfs DIR]\n');
    process.exit(2);
  }
  const serveArgs = argv.filter((_, i) => i !== at && i !== at + 1 && argv[i] !== '--peer' && argv[i - 1] !== '--peer');
  // Paused: the connection's bytes are the child's to read.
  const server = createServer({ pauseOnConnect: true }, (conn) => {
    const child = spawn(process.execPath, [SERVE, ...serveArgs], { stdio: [conn, conn, 'inherit'] });
    const done = () => conn.destroy();
    child.on('exit', done);
    child.on('error', (error) => {
      process.stderr.write(`device-agent-hub: could not start the helper: ${error.message}\n`);
      done();
    });
  });
  server.maxConnections = MAX_AT_ONCE;
  // Made 0660 from the start (no moment in which others may connect).
  process.umask(0o117);
  // A socket left by a previous run (the volume outlives the container) would make listen fail.
  rmSync(socket, { force: true });
  server.on('error', (error) => {
    process.stderr.write(`device-agent-hub: cannot listen on ${socket}: ${error.message}\n`);
    process.exit(1);
  });
  server.listen(socket, () => {
    process.stderr.write(`device-agent-hub: listening on ${socket} (mode 0660, uid ${process.getuid?.()}, gid ${process.getgid?.()})\n`);
  });
  const stop = () => {
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 5_000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

if (process.argv[1]?.endsWith('listen.js')) main(process.argv.slice(2));
