/** What a thrown value says: an Error's message, else the value as text. */
export function errorText(error: unknown) {
  return error instanceof Error ? error.message : String(error);
}
