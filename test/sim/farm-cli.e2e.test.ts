// The farm as a separate process, as a benchmark runs it.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Adb } from '@devicefarmer/adbkit';
import { describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('./farm-cli.ts', import.meta.url));
const TS_SPECIFIERS =
  'data:text/javascript,' +
  encodeURIComponent(`
    import { registerHooks } from 'node:module';
    registerHooks({
      resolve(specifier, context, next) {
        try { return next(specifier, context); }
        catch (error) {
          if (!specifier.startsWith('.') || !specifier.endsWith('.js')) throw error;
          return next(specifier.slice(0, -3) + '.ts', context);
        }
      },
    });`);

describe('farm-cli', () => {
  it('prints where its devices are, serves them, and stops everything on stdin EOF', async () => {
    // Node 24 runs the TypeScript source directly (type stripping); the hook
    // maps the NodeNext `./x.js` specifiers to the `./x.ts` sources.
    const child = spawn(
      process.execPath,
      ['--experimental-transform-types', '--no-warnings', '--import', TS_SPECIFIERS, CLI, '--count', '3', '--serial-prefix', 'CLI'],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', () => reject(new Error('farm-cli exited before printing')));
      });
      const info = JSON.parse(line) as { port: number; serials: string[]; serialNumbers: string[] };
      expect(info.serialNumbers).toEqual(['CLI0001', 'CLI0002', 'CLI0003']);
      const client = Adb.createClient({ host: '127.0.0.1', port: info.port, bin: 'false' });
      const listed = await client.listDevices();
      expect(listed.map((d: { id: string }) => d.id).sort()).toEqual([...info.serials].sort());
      const stream = await client.getDevice(info.serials[1]!).shell('getprop ro.serialno');
      expect((await Adb.util.readAll(stream)).toString()).toBe('CLI0002\n');
      child.stdin.end();
      expect(await exited).toBe(0);
      await expect(client.listDevices()).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
