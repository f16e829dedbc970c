import { describe, expect, it } from 'vitest';
import { putSplitting, type ReportSink } from '../../src/report/split-put.js';
import type { FailedDevice, Machine, ReportAnswer } from '../../src/cloud/types.js';
import { captureLogger } from '../log/capture.js';
import { androidPhone } from '../support/devices.js';

// Issue 42, 8a: a cloud that answers a 200 with 200,000 failedDevices
// entries had stored the report, yet `once` said "Maximum call stack size
// exceeded; nothing went out": the entries were spread into push() as that
// many arguments. The answer's length is the cloud's to choose.

const machine = { hostname: 'h' } as Machine;

/** A cloud that stores everything and names `count` devices it did not store. */
function refusing(count: number): ReportSink {
  const failedDevices: FailedDevice[] = Array.from({ length: count }, (_, i) => ({ udid: `ELSEWHERE${i}`, message: 'device belongs to another node' }));
  return { putDevices: (): Promise<ReportAnswer> => Promise.resolve({ failedDevices }) };
}

describe('a 200 whose failedDevices is very long', () => {
  for (const count of [200_000, 1_000_000]) {
    it(`keeps all ${count.toLocaleString('en')} entries, in order, without overflowing the stack`, async () => {
      const { logger } = captureLogger();
      const out = await putSplitting(refusing(count), { nodeId: 'n', machine, devices: [androidPhone('PHONE1')] }, {}, logger);
      expect(out.answer.failedDevices).toHaveLength(count);
      expect(out.answer.failedDevices[0]!.udid).toBe('ELSEWHERE0');
      expect(out.answer.failedDevices[count - 1]!.udid).toBe(`ELSEWHERE${count - 1}`);
      expect(out.parts).toBe(1);
    });
  }
});
