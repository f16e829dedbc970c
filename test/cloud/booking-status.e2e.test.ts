// The booking status client through the real cloud client against the cloud
// double over loopback: only a clear isBooked is an answer; everything else
// is an unknown that the booking gate treats as "leave the device alone".

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BookingStatusClient } from '../../src/cloud/booking-status.js';
import { CloudClient } from '../../src/cloud/client.js';
import { CloudDouble, DEFAULT_API_KEY, DEFAULT_USERNAME } from '../cloud-double/cloud-double.js';
import { sampleDevice, sampleReport } from '../cloud-double/sample.js';
import { captureLogger } from '../log/capture.js';

let double: CloudDouble;
let capture: ReturnType<typeof captureLogger>;
let status: BookingStatusClient;

beforeEach(async () => {
  double = new CloudDouble();
  const baseUrl = await double.start();
  capture = captureLogger();
  // One attempt, as the daemon's client makes (run.ts).
  const cloud = new CloudClient({
    baseUrl,
    username: DEFAULT_USERNAME,
    apiKey: DEFAULT_API_KEY,
    requestTimeoutMs: 30_000,
    logger: capture.logger,
  });
  status = new BookingStatusClient(cloud, 500);
  await cloud.putDevices(sampleReport([sampleDevice('AAA')]));
});

afterEach(async () => {
  await double.stop();
});

describe('BookingStatusClient', () => {
  it('reads isBooked of a device by its udid, with the account credentials', async () => {
    expect(await status.ask('AAA')).toEqual({ booked: false });
    double.setBooked('AAA', true);
    expect(await status.ask('AAA')).toEqual({ booked: true });
    const asked = double.statusRequests('AAA');
    expect(asked).toHaveLength(2);
    expect(asked[0]!.headers.authorization).toMatch(/^Basic /);
  });

  it('a device the cloud does not know, an error status and a body without a boolean isBooked are unknowns', async () => {
    expect(await status.ask('ZZZ')).toEqual({ unknown: 'the cloud does not know the device' });
    double.failNext({ status: 503, path: /\/status$/ });
    expect(await status.ask('AAA')).toMatchObject({ unknown: expect.stringMatching(/503/) });
    double.answerGarbageNext(1, '{"isBooked":', { path: /\/status$/ });
    expect(await status.ask('AAA')).toHaveProperty('unknown');
    double.answerGarbageNext(1, '{"isBooked":"no"}', { path: /\/status$/ });
    expect(await status.ask('AAA')).toEqual({ unknown: 'the cloud answered without a boolean isBooked' });
    double.answerHtmlNext(1, { path: /\/status$/ });
    expect(await status.ask('AAA')).toHaveProperty('unknown');
    // Two: a reset on a kept-alive socket is sent once more on a new one (http.ts).
    double.resetConnectionNext(2, { path: /\/status$/ });
    expect(await status.ask('AAA')).toHaveProperty('unknown');
  });

  it('gives up at its own deadline, however long the cloud takes', async () => {
    double.delayNext(5_000, 1, { path: /\/status$/ });
    const started = Date.now();
    expect(await status.ask('AAA')).toEqual({ unknown: 'no answer within 0.5 s' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('never writes the API key or the Basic credential to the log', async () => {
    await status.ask('AAA');
    double.failNext({ status: 500, path: /\/status$/ });
    await status.ask('AAA');
    const text = JSON.stringify(capture.lines());
    expect(text).not.toContain(DEFAULT_API_KEY);
    expect(text).not.toContain(Buffer.from(`${DEFAULT_USERNAME}:${DEFAULT_API_KEY}`).toString('base64'));
  });
});
