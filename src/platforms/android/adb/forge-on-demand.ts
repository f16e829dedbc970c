// adbkit loads node-forge, about 860 KB of JavaScript (TLS, X.509, PKCS#12,
// ...), for one thing the agent never does: reading an adb public key
// (adbkit's adb/auth.js, for its TCP-USB bridge). At load, auth.js reads
// only forge.jsbn. So before adbkit loads, node-forge's entry in the
// CommonJS cache is forge's core object with jsbn on it, and the first use of
// any other part loads the whole package onto that same object, as its index
// does. About 1.5 MB less resident memory in every process
// (docs/performance/). Imported by client.ts before adbkit, for that order.
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const fromAdbkit = createRequire(require.resolve('@devicefarmer/adbkit'));
const entry = fromAdbkit.resolve('node-forge');

if (fromAdbkit.cache[entry] === undefined) {
  const lib = dirname(entry);
  // The object every part of forge attaches itself to (lib/forge.js), with the big-integer part.
  const core = fromAdbkit(join(lib, 'forge.js')) as Record<string | symbol, unknown>;
  fromAdbkit(join(lib, 'jsbn.js'));
  const seeded = new Module(entry);
  let whole = false;
  const all = (): void => {
    if (whole) return;
    whole = true;
    // The real index requires every part; each adds itself to `core`.
    if (fromAdbkit.cache[entry] === seeded) delete fromAdbkit.cache[entry];
    fromAdbkit(entry);
  };
  seeded.filename = entry;
  seeded.loaded = true;
  seeded.exports = new Proxy(core, {
    get(target, key, receiver) {
      // __esModule: asked by TypeScript's import helper at load, never a part.
      if (typeof key === 'string' && key !== '__esModule' && !(key in target)) all();
      return Reflect.get(target, key, receiver);
    },
  });
  fromAdbkit.cache[entry] = seeded;
}
