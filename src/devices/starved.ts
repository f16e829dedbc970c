// When inventories fail together, the host is at fault, not each phone: a host starved of CPU or I/O (or a saturated
// USB controller) makes every phone it asks miss its deadline at once, and a phone quarantined for it would be a
// healthy one. Decided without I/O from when each inventory was asked and when each failed.

/** Failures this close together are one event of the host's. */
export const TOGETHER_MS = 30_000;
/** At least this many phones, and half of those asked meanwhile, failing together. */
export const STARVED_PHONES = 3;

/** Whether the phones failing now (their latest failure within the window) are the host's: many at once, most of those asked. */
export function starved(failing: number, asked: number) {
  return failing >= STARVED_PHONES && failing * 2 >= asked;
}
