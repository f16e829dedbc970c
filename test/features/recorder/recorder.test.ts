import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { incidentFrom, INCIDENTS_DIR } from '../../../src/devices/incidents.js';
import { addSecret, clearSecrets, MASK } from '../../../src/log/redact.js';
import { Rings, MAX_RINGS } from '../../../src/features/recorder/ring.js';
import { lifeBed, portOf } from '../availability/life.js';

// The flight recorder: a ring per phone, an incident file when one starts,
// bounded, and never a secret in them.

type Life = ReturnType<typeof lifeBed>;
const files = (life: Life) => {
  try {
    return readdirSync(join(life.stateDir, INCIDENTS_DIR)).sort();
  } catch {
    return [];
  }
};
const read = (life: Life, name: string) => incidentFrom(readFileSync(join(life.stateDir, INCIDENTS_DIR, name), 'utf8'))!;

describe('the rings', () => {
  it("keep each phone's last events, oldest first out, under its udid once it gives one; and a bounded number of phones", () => {
    const rings = new Rings(3);
    rings.add({ serial: 'S1' }, 'adb', 'one', 1);
    rings.add({ serial: 'S1', udid: 'U1' }, 'adb', 'two', 2);
    rings.add({ serial: 'S1', udid: 'U1' }, 'adb', 'three', 3);
    rings.add({ serial: 'S1', udid: 'U1' }, 'adb', 'four', 4);
    expect(rings.of({ serial: 'S1', udid: 'U1' }).map((e) => e.text)).toEqual(['two', 'three', 'four']);
    for (let i = 0; i < MAX_RINGS + 10; i++) rings.add({ serial: `F${i}` }, 'adb', 'x', i);
    expect(rings.size).toBe(MAX_RINGS);
    // A control character or a line break from a phone is one line, clipped.
    rings.add({ serial: 'S2' }, 'kernel', `a\u0000b\nc${'x'.repeat(1000)}`, 5);
    const [e] = rings.of({ serial: 'S2' });
    expect(e!.text.startsWith('a b c')).toBe(true);
    expect(e!.text.length).toBeLessThanOrEqual(400);
  });
});

describe('the flight recorder on the report bed', () => {
  let life: Life | undefined;
  afterEach(() => {
    life?.cleanup();
    clearSecrets();
  });

  it('stays within its bounds under flapping phones for an hour of virtual time, the oldest incident files out first', async () => {
    life = lifeBed({
      phones: 4,
      seed: 11,
      set: {
        'recorder.eventsPerPhone': 40,
        'recorder.incidentsPerPhone': 2,
        'recorder.incidentsTotal': 3,
        'quarantine.holdMinutes': 1,
        'quarantine.maxHoldMinutes': 2,
        'quarantine.forgetHours': 1,
      },
    });
    await life.boot();
    const seen = new Set<string>();
    let worstPerPhone = 0;
    let worstTotal = 0;
    const running = life.run(60 * 60_000, ['wedge', 'offline', 'readiness'], false, ['LIFE00', 'LIFE01', 'LIFE02']);
    // Looked at every virtual minute while it runs.
    const watch = setInterval(() => {
      const now = files(life!);
      for (const f of now) seen.add(f);
      const byPhone = new Map<string, number>();
      for (const f of now) byPhone.set(f.split('-')[2]!, (byPhone.get(f.split('-')[2]!) ?? 0) + 1);
      worstPerPhone = Math.max(worstPerPhone, ...byPhone.values(), 0);
      worstTotal = Math.max(worstTotal, now.length);
    }, 5);
    await running;
    clearInterval(watch);
    const kept = files(life);
    for (const f of kept) seen.add(f);
    expect(seen.size).toBeGreaterThan(4);
    expect(worstTotal).toBeLessThanOrEqual(3);
    expect(worstPerPhone).toBeLessThanOrEqual(2);
    // The newest are kept: every file kept is newer than every one removed.
    const removed = [...seen].filter((f) => !kept.includes(f)).sort();
    expect(removed.at(-1)! < kept[0]!).toBe(true);
    for (const f of kept) expect(read(life, f).events.length).toBeLessThanOrEqual(40);
  }, 120_000);

  it.each(['k3y"with\\quote', 'tab\there-and-more', 'slash/and?query&and=more', 'plain-key-1234'])(
    'holds no secret (%j): the log masking is applied to what is kept',
    async (key) => {
      addSecret(key);
      life = lifeBed({ phones: 2, seed: 12, set: { 'recovery.maxKicksPerHour': 1 } });
      await life.boot();
      const port = portOf('LIFE01', life.phones);
      // A phone's own words, a kernel line and a cloud refusal carrying the key, a credential and a URL password.
      life.bed.source.answers.set('LIFE01', { battery: { percentage: key, temperature: 31 } });
      await life.bed.advance(61_000, 1_000);
      for (const hear of life.usb.lines) hear({ port, text: `usb ${port}: Product: ${key} Authorization: Basic dXNlcjpwYXNz`, at: life.bed.clock.wall() });
      life.bed.cloud.refuse.set('LIFE01', `rejected http://lab:${encodeURIComponent(key)}@proxy:3128 and ${key}`);
      await life.bed.advance(61_000, 1_000);
      life.bed.cloud.refuse.delete('LIFE01');
      // Wedged until recovery, its one kick of the hour spent, calls for a person: an incident.
      life.start('wedge', 'LIFE01');
      await life.bed.advance(10 * 60_000, 1_000);
      const [name] = files(life);
      expect(name).toBeDefined();
      const text = readFileSync(join(life.stateDir, INCIDENTS_DIR, name!), 'utf8');
      expect(text).toContain(MASK);
      expect(text).toContain(`kernel: usb ${port}: Product:`);
      for (const form of [key, JSON.stringify(key).slice(1, -1), encodeURIComponent(key), 'dXNlcjpwYXNz']) expect(text).not.toContain(form);
    },
    30_000,
  );

  it("keeps a call for a person as an incident with the phone's adb transitions, its battery, the cloud's answers and the kernel's lines about its port, not another port's", async () => {
    life = lifeBed({ phones: 2, seed: 13, set: { 'recovery.maxKicksPerHour': 1 } });
    await life.boot();
    const [mine, other] = [portOf('LIFE01', life.phones), portOf('LIFE00', life.phones)];
    life.bed.source.answers.set('LIFE01', { battery: { percentage: '57', temperature: 33 } });
    await life.bed.advance(61_000, 1_000);
    life.start('offline', 'LIFE01');
    await life.bed.advance(5_000, 1_000);
    life.end('LIFE01');
    for (const hear of life.usb.lines) {
      hear({ port: mine, text: `usb ${mine}: USB disconnect, device number 9`, at: life.bed.clock.wall() });
      hear({ port: other, text: `usb ${other}: USB disconnect, device number 4`, at: life.bed.clock.wall() });
    }
    await life.bed.advance(61_000, 1_000);
    // Wedged until recovery, its one kick of the hour spent, calls for a person.
    life.start('wedge', 'LIFE01');
    await life.bed.advance(10 * 60_000, 1_000);
    const [name] = files(life);
    const incident = read(life, name!);
    expect(incident).toMatchObject({ serial: 'LIFE01', kind: 'person-needed' });
    expect(incident.cause).toMatch(/^a person is needed: needs a person: its transport was kicked 1 times this hour and it is still wedged/);
    const texts = incident.events.map((e) => `${e.kind} ${e.text}`);
    expect(texts).toEqual(
      expect.arrayContaining([
        'adb android source: device → offline',
        'adb android source: offline → device',
        'battery inventory answered, battery 57%, 33°C',
        `kernel kernel: usb ${mine}: USB disconnect, device number 9`,
        'action recovery kick: ok',
        'cloud the cloud stored it AVAILABLE',
      ]),
    );
    expect(texts.some((t) => t.includes(`usb ${other}`))).toBe(false);
    // One incident per call, not one per look.
    await life.bed.advance(30_000, 1_000);
    expect(files(life)).toHaveLength(1);
  }, 30_000);
  it("stops hearing the kernel's lines when the daemon stops, as the in-service clock does: a daemon started again is not heard twice", async () => {
    life = lifeBed({ phones: 2, seed: 13 });
    await life.boot();
    await life.bed.advance(2_000, 1_000);
    expect(life.usb.lines).toHaveLength(2);
    await life.bed.stopDaemon();
    expect(life.usb.lines).toHaveLength(0);
  }, 30_000);
  it('never files a kernel line under a phone whose port only a serial names: a gadget elsewhere may print it', async () => {
    life = lifeBed({ phones: 2, seed: 13, set: { 'recovery.maxKicksPerHour': 1 } });
    // adb gives LIFE01 no usb path; a gadget on port 1-9 gives its serial, as the layer's sysfs read would find it.
    life.usb.pathless.add('LIFE01');
    const seen = life.usb.seen.bind(life.usb);
    life.usb.seen = (serials, port) => (port === undefined && serials.includes('LIFE01') ? { enumerated: true, port: '1-9' } : seen(serials, port));
    await life.boot();
    await life.bed.advance(61_000, 1_000);
    for (const hear of life.usb.lines) hear({ port: '1-9', text: 'usb 1-9: USB disconnect, device number 7', at: life.bed.clock.wall() });
    life.start('wedge', 'LIFE01');
    await life.bed.advance(10 * 60_000, 1_000);
    const [name] = files(life);
    const incident = read(life, name!);
    expect(incident).toMatchObject({ serial: 'LIFE01', kind: 'person-needed' });
    expect(incident.events.some((e) => e.text.includes('usb 1-9'))).toBe(false);
  }, 30_000);
});
