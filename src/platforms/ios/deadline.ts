// Every iOS I/O step runs under a deadline; on expiry the step's socket is
// destroyed so nothing lingers behind a phone that went quiet.
export function withDeadline<T>(work: Promise<T>, timeoutMs: number, step: string, onTimeout: () => void) {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${step} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    work.finally(() => clearTimeout(timer)).then(resolve, reject);
  });
}
