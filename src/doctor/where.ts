// Where the operator changes what the doctor's advice names: on a packaged host the files the package reads
// (/etc/device-agent/agent.env, config.json, the api-key credential's file), elsewhere (a checkout, a container) the
// variables.
import { docPath, packaged } from '../util/package.js';

export function whereOn(onPackage = packaged) {
  if (!onPackage) {
    return {
      /** After a variable's name: where its line is ('' where the variable is set in the environment). */
      inFile: '',
      /** After "fix the setting": where the settings are ('' where they are the environment's). */
      files: '',
      /** Where the API key goes. */
      key: 'DEVICE_AGENT_API_KEY, DEVICE_AGENT_API_KEY_FILE or the api-key systemd credential',
      /** How the variables the agent read are said. */
      variables: 'variables set',
      /** The settings reference, as a path on this host. */
      reference: docPath('docs/reference/configuration.md', false),
      /** What makes the service read an edit ('' where there is no packaged service). */
      restart: '',
    };
  }
  return {
    inFile: ' in /etc/device-agent/agent.env',
    files: ' in /etc/device-agent/agent.env or /etc/device-agent/config.json',
    key: '/etc/device-agent/api-key',
    variables: 'set in /etc/device-agent/agent.env or the environment',
    reference: docPath('docs/reference/configuration.md', true),
    restart: ', then systemctl restart device-agent',
  };
}
