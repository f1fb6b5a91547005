/**
 * The HTTP server of a start, bound before anything else happens: a port in use stops the start
 * at once, before the store is opened, a master key generated or a site file applied. Requests
 * that arrive while the start goes on wait, and are answered by the app once it is there.
 */
import http from "node:http";

export interface BoundServer {
  server: http.Server;
  /** The bound port (the one the system chose for port 0). */
  port: number;
  /** Hands every request, those waiting and all later ones, to `app`. */
  open(app: http.RequestListener): void;
  /** For a start that failed: stops listening and drops the requests still waiting. */
  abort(): Promise<void>;
}

/** The one line a start on a taken or forbidden port stops with. */
function bindError(error: NodeJS.ErrnoException, port: number, host: string): Error {
  if (error.code === "EADDRINUSE") {
    return new Error(
      `port ${port} is in use on ${host}: is Sitevoice already running? Stop it, or set PORT to a free port`,
    );
  }
  if (error.code === "EACCES") {
    return new Error(
      `port ${port} on ${host} needs privileges this user lacks: set PORT above 1023`,
    );
  }
  return error;
}

export async function bindServer(port: number, host: string): Promise<BoundServer> {
  const waiting: [http.IncomingMessage, http.ServerResponse][] = [];
  const hold: http.RequestListener = (req, res) => void waiting.push([req, res]);
  const server = http.createServer(hold);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(bindError(error, port, host)));
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  return {
    server,
    port: typeof address === "object" && address !== null ? address.port : port,
    open(app) {
      server.removeListener("request", hold);
      server.on("request", app);
      for (const [req, res] of waiting.splice(0)) app(req, res);
    },
    async abort() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
