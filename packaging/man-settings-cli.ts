// Prints the SETTINGS section of device-agent(1), roff, from the settings
// schema and a defaults file (the package's): the same rows as
// docs/reference/configuration.md.
//   node dist/packaging/man-settings-cli.js DEFAULTS_JSON
import { loadDefaults } from '../src/config/load.js';
import { manSettings } from './man-settings.js';

const [defaultsFile] = process.argv.slice(2);
if (!defaultsFile) {
  process.stderr.write('usage: man-settings-cli DEFAULTS_JSON\n');
  process.exit(2);
}
process.stdout.write(manSettings(loadDefaults(defaultsFile)));
