/**
 * `sitevoice keys create | list | revoke`: the API keys of a workspace, on the local store. A new
 * key's value is printed once, never again.
 */
import { parseArgs } from "node:util";
import { scopes, type Scope } from "../auth/principal.ts";
import type { Settings } from "../settings.ts";
import { validateBody } from "../validation/schema-validator.ts";
import { withStore } from "./command-parts.ts";
import { workspaceFor } from "./workspace-for.ts";

/** `usage` is the CLI's usage text, shown after an unknown keys command. */
export async function keys(settings: Readonly<Settings>, args: string[], usage: string) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      scopes: { type: "string" },
      mode: { type: "string", default: "live" },
      "site-ids": { type: "string" },
      workspace: { type: "string" },
    },
  });
  const [action, id] = positionals;
  await withStore(settings, async (parts) => {
    const service = parts.keys;
    const workspaceId = await workspaceFor(parts, values.workspace);
    switch (action) {
      case "create": {
        const input = validateBody<{
          name: string;
          scopes: Scope[];
          mode: "live" | "test";
          site_ids?: string[];
        }>("api-key-create", {
          name: values.name ?? "CLI key",
          scopes: (values.scopes ?? scopes.join(",")).split(",").map((s) => s.trim()),
          mode: values.mode,
          ...(values["site-ids"] === undefined
            ? {}
            : { site_ids: values["site-ids"].split(",").map((s) => s.trim()) }),
        });
        const key = await service.create(workspaceId, input);
        console.log(
          `${key.id}  ${key.scopes.join(",")}  (${key.mode})\n\n  ${key.value}\n\nThis is the only time the value is shown.`,
        );
        return;
      }
      case "list":
        for (const key of await service.list(workspaceId)) {
          const state = key.revoked_at === undefined ? "active" : `revoked ${key.revoked_at}`;
          console.log(`${key.id}  ${key.display}  ${key.name}  ${key.scopes.join(",")}  ${state}`);
        }
        return;
      case "revoke":
        if (id === undefined) throw new Error("keys revoke needs a key id");
        await service.revoke(workspaceId, id);
        console.log(`revoked ${id}`);
        return;
      default:
        throw new Error(`unknown keys command "${action ?? ""}"\n${usage}`);
    }
  });
}
