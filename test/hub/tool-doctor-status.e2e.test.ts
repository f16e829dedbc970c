import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubToolItems } from '../../src/hub/tool-doctor.js';
import { HubBed } from './hub-bed.js';
import { loadProfile, withSerial } from '../sim/profile.js';
import { SimDevice } from '../sim/sim-device.js';

// doctor runs the hub tool's own status listing of the mapped hubs (issue
// 34, finding 4), here the stand-in uhubctl (test/hub/) on the hub bed's
// tree: a tool that is there but sees no hub at a mapped location fails.

const standIn = fileURLToPath(new URL('../hub/uhubctl', import.meta.url));
const hub = new HubBed();
const phone = new SimDevice({ profile: withSerial(loadProfile('pixel-8-pro'), 'DOC00001') });

beforeAll(async () => {
  await hub.start();
  hub.attach('1-1.4', 3, phone);
});
afterAll(() => hub.stop());

const settings = (hubPorts: string[]) => ({
  recovery: { powerCycle: true, powerCycleCommand: standIn },
  charge: { ways: [] },
  hubPorts,
});

describe("doctor's hub tool line", () => {
  it('is OK when the status listing shows each mapped hub and port', async () => {
    const [item] = await hubToolItems(settings(['DOC00001=1-1.4:3']), { ...process.env, ...hub.env }, 'recovery.powerCycleCommand');
    expect(item).toMatchObject({ status: 'ok', finding: expect.stringMatching(/its status listing shows hub 1-1\.4 port 3$/) });
  });

  it('fails when the tool sees no hub at a mapped location, in its own words', async () => {
    const [item] = await hubToolItems(settings(['DOC00001=1-1.4:3', 'OTHER001=1-1.9:2']), { ...process.env, ...hub.env }, 'recovery.powerCycleCommand');
    expect(item).toMatchObject({
      status: 'fail',
      finding: expect.stringMatching(/, but hub 1-1\.9 is not found by the hub tool \(it says: No compatible devices detected at location 1-1\.9!\)$/),
      advice: expect.stringMatching(/compare hubPorts with what/),
    });
  });

  it('fails when the hub has no such port', async () => {
    const [item] = await hubToolItems(settings(['DOC00001=1-1.4:7']), { ...process.env, ...hub.env }, 'recovery.powerCycleCommand');
    expect(item).toMatchObject({ status: 'fail', finding: expect.stringMatching(/but hub 1-1\.4 has no port 7 \(it lists 1, 2, 3, 4\)$/) });
  });
});
