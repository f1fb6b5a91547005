/**
 * The fast REST backend of the query benchmark, run as a child process so its work lands in
 * none of the sides' processes (nor in their CPU time per request). It replays answers recorded from the test suite's Django REST
 * Framework stand-in: the parent sends `[url, body]` pairs over IPC, and each GET of exactly that
 * path and query gets its body back at once; any other URL is 404 (so a server that builds a
 * different query string fails the run). Its port goes back over IPC.
 */
import http from "node:http";

process.once("message", (answers: [string, string][]) => {
  const byUrl = new Map(answers.map(([url, body]) => [url, Buffer.from(body)]));
  const notFound = Buffer.from(JSON.stringify({ detail: "Not found." }));
  const server = http.createServer((req, res) => {
    const body = byUrl.get(req.url ?? "");
    res.writeHead(body === undefined ? 404 : 200, {
      "content-type": "application/json",
      "content-length": (body ?? notFound).length,
    });
    res.end(body ?? notFound);
  });
  // Longer than any pause between runs, so no pooled connection is closed under a client.
  server.keepAliveTimeout = 120_000;
  server.listen(0, "127.0.0.1", () => {
    process.send?.({ port: (server.address() as { port: number }).port });
  });
});
process.on("disconnect", () => process.exit(0));
