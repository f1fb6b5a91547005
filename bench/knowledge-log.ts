/**
 * What the knowledge benchmark reads of the service's own log (JSON lines, `LOG_LEVEL=info`):
 * the crawl's index build (`site knowledge indexed`, its `build_ms`), and within the measured
 * run each search's own time (`knowledge search`, `took_ms`: the index's work, from the site's
 * held index to the passages, no HTTP) and each widget search request's time in the service
 * (`request`, `latency_ms`: from the request's first middleware to the answer's end, with the
 * Origin, signature, limit and envelope, and the waits for the event loop among the other
 * requests in flight). wrk's latency adds the waits before the service reads a request.
 */

export interface ServiceLog {
  /** The last index build logged; undefined when none was. */
  build?: { ms: number; passages: number };
  /** `took_ms` of each search logged within the window, in log order. */
  searchMs: number[];
  /** `latency_ms` of each `POST /v1/:siteId/knowledge` logged within the window. */
  requestMs: number[];
}

interface LogLine {
  time: number;
  msg: string;
  build_ms?: number;
  passages?: number;
  took_ms?: number;
  path?: string;
  latency_ms?: number;
}

const WIDGET_SEARCH = /^\/v1\/[^/]+\/knowledge$/;

/** Reads `text` (the log file); times from `window.from` to `window.to` (ms, inclusive). */
export function readServiceLog(text: string, window: { from: number; to: number }): ServiceLog {
  const log: ServiceLog = { searchMs: [], requestMs: [] };
  for (const raw of text.split("\n")) {
    if (raw === "") continue;
    const line = JSON.parse(raw) as LogLine;
    if (line.msg === "site knowledge indexed") {
      log.build = { ms: line.build_ms!, passages: line.passages! };
      continue;
    }
    if (line.time < window.from || line.time > window.to) continue;
    if (line.msg === "knowledge search") log.searchMs.push(line.took_ms!);
    else if (line.msg === "request" && WIDGET_SEARCH.test(line.path ?? "")) {
      log.requestMs.push(line.latency_ms!);
    }
  }
  return log;
}
