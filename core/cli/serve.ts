/**
 * `sitevoice serve`: starts the HTTP service, prints the first API key and the owner's dashboard
 * setup link when they were just made, the dashboard's address, and why voice calls cannot be
 * had when they cannot (no OPENAI_API_KEY); closes the service on SIGTERM or SIGINT.
 */
import { createLogger } from "../compose.ts";
import type { Settings } from "../settings.ts";
import { startService } from "../http/service.ts";
import { voiceUnavailable, voiceUnavailableNotice } from "../voice/voice-availability.ts";

export async function serve(settings: Readonly<Settings>) {
  const logger = createLogger(settings);
  const service = await startService(settings, logger);
  if (service.boot.firstKey !== undefined) {
    console.log(
      `\nFirst API key (all scopes, test mode), shown once — keep it:\n\n  ${service.boot.firstKey}\n\n` +
        `Try: curl -H "Authorization: Bearer ${service.boot.firstKey}" http://localhost:${service.port}/v1/sites\n`,
    );
  }
  if (service.boot.setupLink !== undefined) {
    const token = service.boot.setupLink.slice(service.boot.setupLink.indexOf("#token=") + 7);
    console.log(
      `Dashboard owner setup link, valid 24 hours and once — whoever opens it becomes the owner ` +
        `of the default workspace:\n\n  ${service.boot.setupLink}\n\n` +
        `(or: curl -X POST ${settings.publicBaseUrl}/v1/auth/setup -H 'Content-Type: application/json' ` +
        `-d '{"token":"${token}","email":"you@example.com","password":"at least 10 characters"}')\n`,
    );
  }
  console.log(`Dashboard: ${settings.publicBaseUrl}/dashboard\n`);
  // Said here too, in words, as the key and the link are: the warning is also in the log.
  const voiceReason = await voiceUnavailable(service);
  if (voiceReason !== undefined) console.log(`${voiceUnavailableNotice(voiceReason)}.\n`);
  logger.info(
    { port: service.port, database: settings.database.client },
    `Sitevoice listening on ${settings.publicBaseUrl}`,
  );
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}
