import type { AgentStats } from '../stats/agent-stats.js';
import { buildNumber } from '../machine/build-number.js';
import { projectRoot } from '../util/package.js';
import { gauge, type Metric } from '../util/metric.js';

export interface MetricsInput {
  stats: AgentStats;
  failedDevices: Array<{ udid: string; message: string }>;
  version: string;
  nodeId: string;
}

/** The agent's metrics from its stats; each platform and feature adds its own, so this file names none. */
export function agentMetrics(input: MetricsInput): Metric[] {
  const { stats } = input;
  return [
    {
      name: 'device_agent_info',
      help: 'Agent version and node id.',
      type: 'gauge',
      samples: [{ labels: { version: input.version, node_id: input.nodeId }, value: 1 }],
    },
    // As node_exporter_build_info: which build runs, joinable with any series.
    {
      name: 'device_agent_build_info',
      help: 'The build that runs: version, revision (the Machine record buildNumber), Node.js version and architecture.',
      type: 'gauge',
      samples: [{ labels: { version: input.version, revision: revisionOf(input.version), nodeversion: process.version, arch: process.arch }, value: 1 }],
    },
    {
      name: 'device_agent_reports_total',
      help: 'PUT /devices reports by result.',
      type: 'counter',
      samples: [
        { labels: { result: 'delivered' }, value: stats.reportsSent },
        { labels: { result: 'failed' }, value: stats.reportsFailed },
      ],
    },
    gauge(
      'device_agent_last_success_timestamp_seconds',
      'When the last report was delivered (Unix time).',
      stats.lastSuccessAt === undefined ? undefined : stats.lastSuccessAt / 1000,
    ),
    {
      name: 'device_agent_failed_device',
      help: 'A device the cloud did not store in the last report, by udid (count() of it: how many).',
      type: 'gauge',
      samples: input.failedDevices.map((f) => ({ labels: { udid: f.udid }, value: 1 })),
    },
    // As node_exporter's node_scrape_collector_duration_seconds and _success: every source run the same way (src/report/execute.ts).
    {
      name: 'device_agent_source_collect_duration_seconds',
      help: "Duration of each source's last collect (its listing described, the inventories asked for), by source.",
      type: 'gauge',
      samples: [...stats.sourceRuns].map(([source, run]) => ({ labels: { source }, value: run.durationMs / 1000 })),
    },
    {
      name: 'device_agent_source_collect_success',
      help: "Whether each source's last collect answered (1) or threw or timed out (0, its devices reported with their last inventories), by source.",
      type: 'gauge',
      samples: [...stats.sourceRuns].map(([source, run]) => ({ labels: { source }, value: run.ok ? 1 : 0 })),
    },
    gauge(
      'device_agent_inventory_duration_seconds',
      'Duration of the last inventory (all devices).',
      stats.lastInventoryDurationMs === undefined ? undefined : stats.lastInventoryDurationMs / 1000,
    ),
  ];
}

// Fixed for the life of the process, so read once rather than on every scrape.
const revisions = new Map<string, string>();
function revisionOf(version: string) {
  let revision = revisions.get(version);
  if (revision === undefined) revisions.set(version, (revision = buildNumber(projectRoot, version)));
  return revision;
}
