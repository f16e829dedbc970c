/**
 * Work started and not awaited by its starter (a port switch, a shell session, a question to the cloud), kept so that a
 * test or a stop can wait until all of it, and whatever it started in turn, has ended.
 */
export class InFlight {
  private readonly work = new Set<Promise<void>>();

  track(work: Promise<void>) {
    const done = work.finally(() => this.work.delete(done));
    this.work.add(done);
  }

  /** Resolves once nothing is in flight. */
  async settled() {
    while (this.work.size) await Promise.all(this.work);
  }
}
