// Node's http and https modules through require, not import. The ESM view of node:http reads each of its exports once,
// and three of them (WebSocket, CloseEvent, MessageEvent) load Node's bundled undici: about 5 MB of RSS in a bare
// process, 2-3 MB in the daemon, for code the agent never runs (docs/performance/journal.md).
import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type * as Https from 'node:https';

const require = createRequire(import.meta.url);

export const http = require('node:http') as typeof Http;
export const https = require('node:https') as typeof Https;
