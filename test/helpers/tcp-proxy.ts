/**
 * A TCP proxy in front of a real server, which a test can cut (stop listening and reset every
 * connection, as a server that restarts does) and restore on the same port.
 */
import net from "node:net";

export interface TcpProxy {
  port: number;
  /**
   * Refuses new connections and resets the open ones, or closes them (`graceful`: a FIN, as a
   * server that exits does, rather than a reset).
   */
  cut(options?: { graceful?: boolean }): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  const cut = async (options: { graceful?: boolean } = {}) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) {
      if (options.graceful) socket.destroy();
      else socket.resetAndDestroy();
    }
    await closed;
  };
  return {
    port,
    cut,
    restore: async () => void (await listen(port)),
    close: async () => (server.listening ? cut() : undefined),
  };
}
