// The trust rule applied to recovery's plan (actions/trust.ts): no host
// action for a device whose identity is in conflict, no power cycle of a port
// a USB phone is not behind. Each refusal is counted and said once per device
// and reason.
import { conflictText, type Claim, type Conflict } from '../../devices/claims.js';
import { limited } from '../../log/limited.js';
import type { Logger } from '../../log/logger.js';
import { SaidOnce } from '../../log/said-once.js';
import type { AgentStats } from '../../stats/agent-stats.js';
import { portRefusal } from '../../actions/trust.js';
import { ACTION_NAME } from './action-names.js';
import type { RecoveryAction } from './policy.js';

export class Refusals {
  /** Actions refused for a device ("serial|action"), with why: said once per reason. */
  private readonly said: SaidOnce;

  constructor(
    private readonly stats: Pick<AgentStats, 'noteRefused'>,
    private readonly logger: Logger,
    now: () => number,
  ) {
    this.said = new SaidOnce(now);
  }

  /**
   * The action as it may be taken: none for a device whose identity is in
   * conflict, no power cycle of a port a USB phone is not behind, and an
   * offline reconnect only of the devices whose identity holds.
   */
  trusted(
    action: RecoveryAction,
    conflicts: ReadonlyMap<string, Conflict>,
    claims: readonly Claim[],
    keyRefused: ReadonlyMap<string, string>,
  ): RecoveryAction | undefined {
    if (action.kind === 'reconnect-offline') {
      const serials = action.serials.filter((s) => !conflicts.has(s));
      for (const s of action.serials) if (conflicts.has(s)) this.refuse(s, 'reconnect_offline', conflictText(conflicts.get(s)!));
      // adb's host-wide reconnect would reach the conflicted ones too: one by one instead.
      if (serials.length === action.serials.length) return action;
      return serials.length ? { ...action, all: false, serials } : undefined;
    }
    if (action.kind !== 'kick' && action.kind !== 'power-cycle') return action;
    const conflict = conflicts.get(action.serial);
    const claim = claims.find((c) => c.serial === action.serial);
    const why = conflict
      ? conflictText(conflict)
      : action.kind === 'power-cycle'
        ? (keyRefused.get(action.serial) ?? (claim && portRefusal(claim, claims, { hub: action.hub, port: action.port }, true)))
        : undefined;
    if (why === undefined) return action;
    this.refuse(action.serial, ACTION_NAME[action.kind], why);
    return undefined;
  }

  /** The devices listed now: a refusal of one that went is said again if it comes back refused. */
  listed(serials: ReadonlySet<string>): void {
    this.said.retain((key) => serials.has(key.slice(0, key.lastIndexOf('|'))));
  }

  private refuse(serial: string, action: string, why: string): void {
    if (!this.said.say(`${serial}|${action}`, why)) return;
    this.stats.noteRefused(action);
    limited(this.logger).warn(
      'recovery-refused',
      { serial, action, reason: why },
      `recovery does not ${action.replace('_', ' ')} ${serial}: ${why}; no host action is taken for it until its identity holds`,
      serial,
    );
  }
}
