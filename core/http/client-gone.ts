/**
 * The abort of a request's work when its client goes away before the answer is complete (a
 * closed tab, a proxy that gave up): what the work waits on (a backend's query, a provider's
 * request) is let go rather than finished for no one.
 */
import type { ServerResponse } from "node:http";

/** An AbortController aborted once `res` closes unfinished; its owner may abort it sooner. */
export function abortOnClientGone(res: ServerResponse): AbortController {
  const abort = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) abort.abort(new Error("client closed the request"));
  });
  return abort;
}
