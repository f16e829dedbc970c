// npm run cycles [-- ROOT]. Runs unconditionally when loaded (no
// import.meta.main guard, which Node before 22.18 lacks and would turn into a
// silent pass); the tests import ./cli.js instead.
import { main } from './cli.js';

process.exitCode = main(process.argv.slice(2), process.stdout, process.stderr);
