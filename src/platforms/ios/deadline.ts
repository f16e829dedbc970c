// Every iOS I/O step runs under a deadline; on expiry the step's socket is
// destroyed so nothing lingers behind a phone that went quiet.
import { IosTimeoutError } from './errors.js';

export function withDeadline<T>(work: Promise<T>, timeoutMs: number, step: string, onTimeout: () => void) {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onTimeout();
      reject(new IosTimeoutError(step, timeoutMs));
    }, timeoutMs);
    work.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
