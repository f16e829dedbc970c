import { describe, expect, it } from 'vitest';
import { scrapeMetrics } from './daemon-bed.js';
import { hubDaemonBed, standIn } from './hub-daemon-bed.js';
import { devicesOf } from '../support/reports.js';

// Issue 35, finding 1: a phone that gives another phone's udid must not get
// that phone's hub port switched. Two simulated phones behind the real adb
// server both give ro.serialno VICTIM01; the victim (50 %) is on hub 1-1.4
// port 3, mapped by its udid, the impostor is at 100 % and then wedges.
// Before the fix, charge control paused the victim's port on the impostor's
// reading, and recovery power-cycled the victim's port for the impostor.

const { bed, hub } = hubDaemonBed('samsung-galaxy-s25-plus');
const { cloud } = bed;

const sample = (text: string, name: string, labels: string): number | undefined => {
  const m = new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('two phones giving one udid, one of them on a mapped hub port', () => {
  it('no port is switched and no transport kicked for either; the conflict is in the message and the metrics', async () => {
    // Network phones the agent connects: recovery kicks only a TCP phone it connects again.
    const victim = await bed.networkPhone('VICTIM01', { uptimeSeconds: 3_600 });
    const impostor = await bed.networkPhone('VICTIM01', { uptimeSeconds: 86_400 });
    await victim.setBatteryLevel(50);
    await impostor.setBatteryLevel(100);
    hub.attach('1-1.4', 3, victim);
    cloud.setBooked('VICTIM01', false);
    const agent = bed.run({
      ...hub.env,
      DEVICE_AGENT_NETWORK_DEVICES: `${victim.serial},${impostor.serial}`,
      DEVICE_AGENT_HUB_PORTS: 'VICTIM01=1-1.4:3',
      DEVICE_AGENT_CHARGE_WAYS: 'VICTIM01=uhubctl',
      DEVICE_AGENT_RECOVERY_POWER_CYCLE: 'true',
      DEVICE_AGENT_RECOVERY_POWER_CYCLE_COMMAND: standIn,
      DEVICE_AGENT_RECOVERY_KICK_AFTER_SHELL_FAILURES: '2',
      DEVICE_AGENT_RECOVERY_KICK_COOLDOWN_SECONDS: '10',
      DEVICE_AGENT_RECOVERY_BOOKING_CACHE_SECONDS: '2',
      DEVICE_AGENT_PROBE_TIMEOUT_SECONDS: '2',
      DEVICE_AGENT_STATUS_LISTEN: '127.0.0.1:0',
      DEVICE_AGENT_SCHEDULE: '*/2 * * * * *',
    });

    // The impostor's 100 % calls for a pause of the port mapped to VICTIM01 (the victim's): refused, said once.
    // (Read before the victim, it is refused first because the victim has not said who it is yet.)
    const pauseLine = await agent.waitForLog((l) => /^not pausing the charge of VICTIM01 .*give the udid VICTIM01/.test(String(l.msg)), 40_000);
    expect(pauseLine.serial).toBe(impostor.serial);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(hub.switches).toEqual([]);
    expect(String(pauseLine.msg)).toMatch(/^not pausing the charge of VICTIM01 .*battery at 100 %: 2 devices .* give the udid VICTIM01/);

    const named = await cloud.waitForPut(
      (r) => devicesOf(r).some((d) => d.udid === 'VICTIM01' && /identity in conflict: 2 devices .* give the udid VICTIM01/.test(d.message ?? '')),
      20_000,
    );
    expect(devicesOf(named).filter((d) => d.udid === 'VICTIM01')).toHaveLength(1);

    // The impostor wedges: a kick is due for it, and after it a power cycle of "its" port.
    impostor.wedge(true);
    const refusedKick = await agent.waitForLog((l) => /recovery does not kick/.test(String(l.msg)), 90_000);
    expect(refusedKick.serial).toBe(impostor.serial);
    // The line names the phone, why (the conflict), and that nothing is done to it until its identity holds.
    expect(String(refusedKick.msg)).toMatch(
      new RegExp(
        `^recovery does not kick ${impostor.serial.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: .*VICTIM01.*; no host action is taken for it until its identity holds$`,
      ),
    );
    // No power cycle follows the refused kick: the half hour after it is
    // test/features/recovery/identity-conflict.test.ts's, on virtual time (this
    // waited 15 s for a cycle after the kick cooldown).

    expect(hub.switches).toEqual([]);
    expect(agent.logs().filter((l) => /kicking the adb transport|power-cycling hub|^pausing the charge of/.test(String(l.msg)))).toEqual([]);
    const text = await scrapeMetrics(agent);
    expect(sample(text, 'device_agent_identity_conflict_devices', 'kind="shared_udid",id="VICTIM01"')).toBe(2);
    expect(sample(text, 'device_agent_actions_refused_total', 'action="charge_pause"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'device_agent_actions_refused_total', 'action="kick"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'device_agent_recovery_actions_total', 'action="kick",result="ok"')).toBeUndefined();
    expect(text).toMatch(/^device_agent_charge_pauses_total 0$/m);
  }, 240_000);
});
