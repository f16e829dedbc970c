/**
 * The text as a sentence another can follow: ended by its own period (an error's advice often ends with one), or given
 * one. Lines that join an error's text to what follows use it, so that they read "...account). Nothing went out", never
 * "...account).; nothing went out".
 */
export function sentence(text: string) {
  const t = text.trimEnd();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** The text with its first letter a capital: what follows a sentence. */
export function capitalized(text: string) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
