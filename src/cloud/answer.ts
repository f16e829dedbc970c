// Pure reading of the cloud's answers: which failure class a status belongs to, and whether a PUT /devices body is the
// expected {"failedDevices": [...]}. No I/O here; client.ts turns the results into typed errors.

import type { FailedDevice, ReportAnswer } from './types.js';

export function classifyStatus(status: number) {
  if (status >= 200 && status < 300) return 'success';
  if (status >= 300 && status < 400) return 'redirect';
  // Never retried.
  if (status === 401 || status === 403) return 'auth';
  // Retried.
  if (status === 408 || status === 429 || status >= 500) return 'transient';
  // Other 4xx (and anything unexpected): not retried.
  return 'rejected';
}

type ParsedReportAnswer = { ok: true; answer: ReportAnswer; /** entries without a string udid, left out */ dropped: number } | { ok: false; problem: string };

/**
 * Reads a 2xx PUT /devices body: {"failedDevices": [...]}, an empty body or an object without it meaning nothing
 * failed. Anything not JSON (a captive portal's page, a cut body) is not delivered; the body decides, not the type.
 */
export function parseReportAnswer(body: string): ParsedReportAnswer {
  if (body.trim() === '') return { ok: true, answer: { failedDevices: [] }, dropped: 0 };
  const json = parseJson(body);
  if (json === undefined) {
    return { ok: false, problem: looksLikeHtml(body) ? 'HTML instead of JSON' : 'body is not valid JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, problem: `expected a JSON object, got ${Array.isArray(json) ? 'an array' : typeof json}` };
  }
  const list = (json as Record<string, unknown>).failedDevices;
  if (list === undefined || list === null) return { ok: true, answer: { failedDevices: [] }, dropped: 0 };
  if (!Array.isArray(list)) return { ok: false, problem: 'failedDevices is not an array' };
  const failedDevices: FailedDevice[] = [];
  let dropped = 0;
  for (const item of list as unknown[]) {
    const entry = item as { udid?: unknown; message?: unknown } | null;
    if (typeof entry !== 'object' || entry === null || typeof entry.udid !== 'string') {
      dropped += 1;
      continue;
    }
    const message = typeof entry.message === 'string' && entry.message.length > 0 ? entry.message : '(no reason given)';
    failedDevices.push({ udid: entry.udid, message });
  }
  return { ok: true, answer: { failedDevices }, dropped };
}

type ParsedObject = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

/** Reads a 2xx body that must be a JSON object (GET /devices, GET /devices/{udid}). */
export function parseJsonObject(body: string): ParsedObject {
  const json = parseJson(body);
  if (json === undefined) {
    return { ok: false, problem: body.trim() === '' ? 'empty body' : looksLikeHtml(body) ? 'HTML instead of JSON' : 'body is not valid JSON' };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return { ok: false, problem: 'expected a JSON object' };
  return { ok: true, value: json as Record<string, unknown> };
}

export function parseJson(text: string) {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function looksLikeHtml(body: string) {
  return /^\s*<(!doctype|html|head|body)/i.test(body);
}
