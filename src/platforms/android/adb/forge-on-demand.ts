// adbkit loads node-forge (860 KB of JavaScript) for one thing the agent never
// does: reading an adb public key (adb/auth.js, which reads only forge.jsbn at
// load). So before adbkit loads, node-forge's CommonJS cache entry is forge's
// core object with jsbn on it, and the first use of any other part loads the
// whole package onto that same object, as its index does: about 1 MB less heap
// in every process (docs/performance/). Imported by client.ts before adbkit.
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
  const all = () => {
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
