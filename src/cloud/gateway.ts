// Whether a 502, 503 or 504 came from a gateway in front of the cloud (its own page, not the API's JSON): the hop
// behind it failed, which is where the operator or the lab's network team must look. Pure.

import { parseJson } from './answer.js';

const GATEWAY_STATUSES: Record<number, string> = {
  502: 'it could not reach the cloud or got no valid answer from it',
  503: 'it has no cloud server to send the request to, or is overloaded',
  504: 'the cloud did not answer it in time',
};

/** The longest product name kept from a Server header. */
const NAME_CHARS = 60;

/** The gateway that made this answer ("nginx/1.22.1", else "a gateway"), or undefined: another status, an empty or JSON body. */
export function gatewayOf(status: number, server: string | undefined, body: string) {
  if (GATEWAY_STATUSES[status] === undefined) return undefined;
  const text = body.trim();
  if (text === '' || parseJson(text) !== undefined) return undefined;
  const name = (server ?? '')
    .replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, NAME_CHARS);
  return name === '' ? 'a gateway' : `the gateway ${name}`;
}

/** The reason of a gateway's answer: who answered, that the host reached it, and what failed behind it. */
export function gatewayReason(status: number, statusText: string, gateway: string) {
  const text = statusText ? ` ${statusText}` : '';
  return (
    `HTTP ${status}${text} from ${gateway} in front of the cloud, not from the cloud's API: ` +
    `this host reaches the gateway, and the hop behind it failed (${GATEWAY_STATUSES[status] ?? 'it failed'})`
  );
}
