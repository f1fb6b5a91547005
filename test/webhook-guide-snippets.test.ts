/**
 * The webhook guide's verification snippets, run as written against real deliveries: the Node.js one
 * imported from a file, the Python one run by python3. Each accepts a genuine delivery (with
 * either secret while a rotated one still signs) and refuses a changed body, a wrong secret and a
 * changed timestamp. The deliveries are verified by `standardwebhooks` too, so a snippet that
 * accepted everything would not pass.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { seal } from "../core/security/secret-box.ts";
import { newWebhookSecret } from "../core/webhooks/webhook-signatures.ts";
import { docPage } from "./helpers/docs.ts";
import { addEndpoint } from "./helpers/webhook-endpoints.ts";
import { webhookHarness, type Harness } from "./helpers/webhook-harness.ts";
import { startReceiver, type Receiver, type Received } from "./helpers/webhook-receiver.ts";

const run = promisify(execFile);
const GUIDE = "docs/webhooks.md";

/** The webhook guide's code block whose first line is `marker`. */
function snippet(marker: string): string {
  const text = docPage(GUIDE);
  for (const match of text.matchAll(/^```\w+\n([\s\S]*?)^```$/gm)) {
    const code = match[1] as string;
    if (code.startsWith(`${marker}\n`)) return code;
  }
  throw new Error(`no code block of ${GUIDE} starts with ${marker}`);
}

type Verify = (secret: string, body: Buffer, headers: Record<string, string>) => Promise<boolean>;

describe("the webhook guide's verification snippets", function () {
  this.timeout(30_000);
  let harness: Harness;
  let receiver: Receiver;
  let dir: string;
  let endpoint: { id: string; secret: string };
  let delivery: Received;
  const verifiers: Record<string, Verify> = {};

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-snippets-"));
    const nodeFile = path.join(dir, "verify-webhook.mjs");
    fs.writeFileSync(nodeFile, snippet("// verify-webhook.mjs"));
    const node = (await import(pathToFileURL(nodeFile).href)) as {
      verifyWebhook: (s: string, b: Buffer, h: Record<string, string>) => boolean;
    };
    verifiers["Node.js"] = async (secret, body, headers) =>
      node.verifyWebhook(secret, body, headers);
    fs.writeFileSync(path.join(dir, "verify_webhook.py"), snippet("# verify_webhook.py"));
    const driver = [
      "import base64, json, sys",
      "from verify_webhook import verify_webhook",
      "given = json.load(sys.stdin)",
      "ok = verify_webhook(given['secret'], base64.b64decode(given['body']), given['headers'])",
      "print('true' if ok else 'false')",
    ].join("\n");
    fs.writeFileSync(path.join(dir, "driver.py"), driver);
    verifiers.Python = async (secret, body, headers) => {
      const child = run("python3", ["driver.py"], { cwd: dir });
      child.child.stdin!.end(JSON.stringify({ secret, body: body.toString("base64"), headers }));
      const { stdout } = await child;
      return stdout.trim() === "true";
    };

    harness = await webhookHarness();
    harness.clock.now = Date.now();
    receiver = await startReceiver();
    endpoint = await addEndpoint(harness.store, harness.ring, {
      workspaceId: harness.workspaceId,
      url: receiver.url,
      events: ["lead.captured"],
    });
    await harness.record();
    await harness.dispatcher.runDue();
    delivery = receiver.received[0]!;
    // The deliveries really are signed: an independent verifier accepts this one.
    new Webhook(endpoint.secret).verify(delivery.body, headersOf(delivery));
  });
  after(async () => {
    await harness?.close();
    await receiver?.close();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });

  const headersOf = (request: Received) => request.headers as Record<string, string>;
  const bodyOf = (request: Received) => Buffer.from(request.body, "utf8");

  for (const language of ["Node.js", "Python"]) {
    describe(language, () => {
      const check = (secret: string, body: Buffer, headers: Record<string, string>) =>
        verifiers[language]!(secret, body, headers);

      it("accepts a genuine delivery", async () => {
        expect(await check(endpoint.secret, bodyOf(delivery), headersOf(delivery))).to.equal(true);
      });

      it("refuses a changed body, another secret and a changed timestamp", async () => {
        const body = bodyOf(delivery);
        const headers = headersOf(delivery);
        const changed = Buffer.from(delivery.body.replace('"n":"', '"n":"x'));
        expect(await check(endpoint.secret, changed, headers)).to.equal(false);
        expect(await check(newWebhookSecret(), body, headers)).to.equal(false);
        const later = {
          ...headers,
          "webhook-timestamp": String(Number(headers["webhook-timestamp"]) + 1),
        };
        expect(await check(endpoint.secret, body, later)).to.equal(false);
      });
    });
  }

  it("accepts either secret while a rotated one still signs (both snippets)", async () => {
    const fresh = newWebhookSecret();
    await harness.store.db
      .knex("webhook_endpoints")
      .where({ id: endpoint.id })
      .update({
        secret: seal(harness.ring, fresh),
        previous_secret: seal(harness.ring, endpoint.secret),
        previous_secret_until: harness.clock.now + 24 * 3_600_000,
      });
    await harness.record();
    await harness.dispatcher.runDue();
    const rotated = receiver.received[1]!;
    expect(headersOf(rotated)["webhook-signature"]!.split(" ")).to.have.length(2);
    for (const verify of Object.values(verifiers)) {
      expect(await verify(fresh, bodyOf(rotated), headersOf(rotated))).to.equal(true);
      expect(await verify(endpoint.secret, bodyOf(rotated), headersOf(rotated))).to.equal(true);
      expect(await verify(newWebhookSecret(), bodyOf(rotated), headersOf(rotated))).to.equal(false);
    }
  });
});
