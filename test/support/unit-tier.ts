// The unit tier's setup file (vitest.config.ts): a unit test runs in its
// own process and touches no socket and no other process, so it is fast and
// cannot flake on a loaded machine. Anything that would open a connection,
// listen, or start a process throws at once, naming the tier, instead of
// quietly making the tier slow. A test that needs them belongs to the e2e
// tier: name its file x.e2e.test.ts (vitest.config.ts globs the name).
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

class UnitTierRefusal extends Error {
  override name = 'UnitTierRefusal';
}

function refuse(what: string): never {
  throw new UnitTierRefusal(
    `${what} is refused in the unit tier (sockets and child processes are the e2e tier's): ` +
      'rename the test file to x.e2e.test.ts (the e2e project, vitest.config.ts), or test the logic without the I/O',
  );
}

// Every outgoing TCP, TLS, HTTP(S), fetch and unix-socket connection goes
// through Socket#connect, every server through Server#listen.
net.Socket.prototype.connect = function connect(): never {
  refuse('a socket connection (net/http/https/fetch)');
};
net.Server.prototype.listen = function listen(): never {
  refuse('listening on a socket (net/http/https createServer().listen)');
};

// Each function of child_process, patched one by one (they call each other
// through the module's own bindings), and the class's spawn under them.
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = () => refuse(`child_process.${name}`);
}
// ChildProcess#spawn is there at run time, though @types/node leaves it out.
(childProcess.ChildProcess.prototype as unknown as { spawn: () => never }).spawn = () => refuse('starting a child process');
// `import { spawn } from 'node:child_process'` reads the patched functions too.
syncBuiltinESMExports();
