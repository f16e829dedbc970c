import { describe, expect, it } from 'vitest';
import { classifyStatus, parseJsonObject, parseReportAnswer } from '../../src/cloud/answer.js';

describe('classifyStatus', () => {
  it('sorts statuses into what the client does with them', () => {
    const table: Array<[number, string]> = [
      [200, 'success'],
      [204, 'success'],
      [302, 'redirect'],
      [400, 'rejected'],
      [401, 'auth'],
      [403, 'auth'],
      [404, 'rejected'],
      [408, 'transient'],
      [413, 'rejected'],
      [429, 'transient'],
      [500, 'transient'],
      [502, 'transient'],
      [503, 'transient'],
      [504, 'transient'],
      [100, 'rejected'],
    ];
    for (const [status, kind] of table) expect([status, classifyStatus(status)]).toEqual([status, kind]);
  });
});

describe('parseReportAnswer', () => {
  it('reads the failedDevices list', () => {
    expect(parseReportAnswer('{"failedDevices":[{"udid":"A","message":"missing required capability"}]}')).toEqual({
      ok: true,
      answer: { failedDevices: [{ udid: 'A', message: 'missing required capability' }] },
      dropped: 0,
    });
  });

  it('reads an empty body, {} and a null list as nothing failed', () => {
    for (const body of ['', '  \n', '{}', '{"failedDevices":null}']) {
      expect(parseReportAnswer(body)).toEqual({ ok: true, answer: { failedDevices: [] }, dropped: 0 });
    }
  });

  it('drops entries without a string udid and fills a missing message', () => {
    const parsed = parseReportAnswer('{"failedDevices":[{"udid":"A"},{"message":"x"},null,{"udid":7,"message":"y"}]}');
    expect(parsed).toEqual({ ok: true, answer: { failedDevices: [{ udid: 'A', message: '(no reason given)' }] }, dropped: 3 });
  });

  it('names the problem with HTML, garbage and wrong shapes', () => {
    expect(parseReportAnswer('<!DOCTYPE html><html>')).toEqual({ ok: false, problem: 'HTML instead of JSON' });
    expect(parseReportAnswer('{"failedDevices":[{"udid":"')).toEqual({ ok: false, problem: 'body is not valid JSON' });
    expect(parseReportAnswer('[]')).toEqual({ ok: false, problem: 'expected a JSON object, got an array' });
    expect(parseReportAnswer('"ok"')).toEqual({ ok: false, problem: 'expected a JSON object, got string' });
    expect(parseReportAnswer('{"failedDevices":"none"}')).toEqual({ ok: false, problem: 'failedDevices is not an array' });
  });
});

describe('parseJsonObject', () => {
  it('accepts objects only', () => {
    expect(parseJsonObject('{"isOnline":true}')).toEqual({ ok: true, value: { isOnline: true } });
    expect(parseJsonObject('')).toEqual({ ok: false, problem: 'empty body' });
    expect(parseJsonObject('<html>')).toEqual({ ok: false, problem: 'HTML instead of JSON' });
    expect(parseJsonObject('[1]')).toEqual({ ok: false, problem: 'expected a JSON object' });
  });
});
