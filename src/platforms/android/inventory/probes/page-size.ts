import { parsePageSize } from '../parsers/page-size.js';
import type { Probe } from './types.js';

// The kernel's page size (4 or 16 KB: Android 15 and later phones may boot a
// 16 KB kernel), an inventory fact the cloud's DeviceInfo has no field for:
// `list --json` shows it (pageSizeBytes). Fixed while the phone stays booted,
// so read once per connection, never on the periodic cycle.
export const pageSize: Probe<number> = {
  section: 'page_size',
  tier: 'connection',
  command: 'getconf PAGE_SIZE',
  fields: [],
  note: "the kernel's memory page size (16 KB kernels from Android 15): feeds no field, `list --json` shows it",
  parse: parsePageSize,
};
