/** The JSON object a text holds, its fields unchecked; undefined when it is not JSON or not an object (an array is none). */
export function jsonObject(text: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
