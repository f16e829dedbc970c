// Ports for the test beds' servers and simulated phones, below the kernel's ephemeral range, in slices that no two
// live processes share.
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Ports this process handed out: not handed out again, so that one given back (an adb server killed, a phone unplugged) is there for its owner to take again. */
const handedOut = new Set<number>();

/**
 * The range is cut into SLICES. A deploy check that draws ports in the host's network beside the test tiers names its
 * own (DEVICE_AGENT_TEST_PORT_SLICE: 4 for rollout.sh, 5 for systemd.sh); a process outside vitest that names none
 * (container.sh, the bench) draws from 0. A test process (VITEST_POOL_ID set) leases one of LEASED for as long as it
 * lives. The pool id alone did not keep two processes apart: vitest 4 hands a worker's id to the next file's worker as
 * soon as a file ends and stops the old fork without waiting for it, and a bed's child inherits the id. CI at 8e465214:
 * charge-control's phone, unplugged, lost its port to status.test's adb server, drawn by another fork with id 2; the
 * phone's replug hit EADDRINUSE and the status test's agent met the phone there.
 */
const SLICES = 10;
export const LEASED = [1, 2, 3, 6, 7, 8, 9];
/** How long a test process waits for a slice while every leased one is held. */
const LEASE_WAIT_MS = 120_000;

/** Ports [from, from + size) of slice `index`; its first port is its lease, never handed out. */
export function sliceRange(index: number) {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    // Not Linux: the usual start of the range.
  }
  const top = Math.max(1100, low - 1);
  const bottom = Math.max(1025, top - 10_000);
  const size = Math.floor((top - bottom) / SLICES);
  return { index, from: bottom + (index % SLICES) * size, size };
}

const listen = (port: number) =>
  new Promise<net.Server | undefined>((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });

/**
 * Leases the first of `candidates` whose lease port no live process listens on, and holds it until `release` or the
 * process's end, whatever ends it: the kernel frees a dead process's port, so a lease is never stale.
 */
export async function leaseSlice(candidates: readonly number[] = LEASED, waitMs = LEASE_WAIT_MS) {
  const until = Date.now() + waitMs;
  for (;;) {
    for (const index of candidates) {
      const range = sliceRange(index);
      const lease = await listen(range.from);
      if (lease === undefined) continue;
      lease.unref();
      return { ...range, release: () => new Promise<void>((resolve) => lease.close(() => resolve())) };
    }
    if (Date.now() > until) throw new Error(`no test port slice free in ${waitMs} ms: ${candidates.length} test processes hold them all`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let mine: Promise<{ index: number; from: number; size: number }> | undefined;

/** This process's slice: named by DEVICE_AGENT_TEST_PORT_SLICE, leased under vitest, else 0. */
export function portSlice() {
  const named = process.env.DEVICE_AGENT_TEST_PORT_SLICE;
  if (named !== undefined) return Promise.resolve(sliceRange(Number(named) || 0));
  if (process.env.VITEST_POOL_ID === undefined) return Promise.resolve(sliceRange(0));
  mine ??= leaseSlice();
  return mine;
}

/**
 * A free port for another process to listen on, below the kernel's ephemeral range: a port the kernel handed out goes
 * back into that range, where any outgoing connection (adb to a phone) may take it before the other process listens on
 * it. Never twice the same port in one process, and never one of another live process's slice: an adb server
 * restarted on its port found a simulated phone of another worker there (CI13, when all drew from the whole range).
 */
export async function freePort(): Promise<number> {
  const { from, size } = await portSlice();
  // Ports the process that started this one drew for others to listen on later (DEVICE_AGENT_TEST_RESERVED_PORTS,
  // comma-separated): test/deploy/container.sh draws its eight at once, and a bed it starts drew its own phones' ports
  // from the same slice. One phone took the control port the bed was about to listen on (CI at 51586f49: the bed died
  // of EADDRINUSE, and with it the check's cloud).
  const reserved = new Set((process.env.DEVICE_AGENT_TEST_RESERVED_PORTS ?? '').split(',').filter(Boolean).map(Number));
  for (let attempt = 0; ; attempt++) {
    const port = from + 1 + Math.floor(Math.random() * (size - 1));
    if (reserved.has(port)) continue;
    // A slice used up (thousands of ports in one process) may hand out a port again rather than fail.
    if (handedOut.has(port) && attempt < 10 * size) continue;
    const server = await listen(port);
    if (server !== undefined) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      handedOut.add(port);
      return port;
    }
    if (attempt > 10 * size + 100) throw new Error('no free port below the ephemeral range');
  }
}
