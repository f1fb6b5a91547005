/**
 * Event-sink plugins on the event bus: each service-wide sink instance receives every service
 * event once it is stored (its data as recorded, secrets in clear: a sink is the operator's own
 * code). A sink that fails is logged; the bus and the other sinks go on.
 */
import type { Logger } from "pino";
import type { EventSink } from "../host/plugin.ts";
import type { EventBus } from "./event-bus.ts";

export function connectEventSinks(bus: EventBus, sinks: EventSink[], logger: Logger): void {
  if (sinks.length === 0) return;
  bus.subscribe((bused) => {
    if (bused.kind !== "service") return;
    const { id, type, site_id, data } = bused.event;
    for (const sink of sinks) {
      sink
        .handle({ id, type, site_id, data })
        .catch((err: unknown) => logger.warn({ err, event_id: id, type }, "an event sink failed"));
    }
  });
}
