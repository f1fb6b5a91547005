/**
 * What the run did, phase by phase, printed once at the end: what was acknowledged, how fast
 * changes showed, what the faults cost clients in retries and what they saw fail. For people
 * reading a run; nothing here is asserted.
 */
import type { Client } from "./client.ts";
import type { Records } from "./mixed-workload.ts";
import type { StreamSubscriber } from "./streams.ts";

export function summary(
  phases: string[],
  records: Records,
  client: Client,
  subscribers: StreamSubscriber[],
): string {
  const acked = (map: Records["events"], phase: string) =>
    [...map.values()].filter((s) => s.phase === phase && s.acked.size > 0).length;
  const lines = phases.map((phase) => {
    const changes = records.changes.filter((c) => c.phase === phase);
    const slowest = Math.max(0, ...changes.flatMap((c) => Object.values(c.shownAfter)));
    const failures = client.failures.filter((f) => f.phase === phase);
    const failed = [...new Set(failures.map((f) => `${f.op} ${f.status}`))].join(", ");
    return (
      `  ${phase}: ${acked(records.events, phase)} usage events and ` +
      `${acked(records.leads, phase)} leads acknowledged, ` +
      `${changes.filter((c) => c.kind === "api").length} API and ` +
      `${changes.filter((c) => c.kind === "sync").length} sync changes (slowest shown after ` +
      `${slowest} ms), ${client.retries.get(phase) ?? 0} retries, ` +
      `${failures.length} failures${failed === "" ? "" : ` (${failed})`}`
    );
  });
  const streams = subscribers.map(
    (s) =>
      `  ${s.name}: ${s.ids().length} events read, via ${s.streams.map((x) => x.instance).join(">")}`,
  );
  return ["cluster run:", ...lines, ...streams].join("\n");
}
