/**
 * `sitevoice keys create | list | revoke`: the API keys of a workspace, on the local store. A new
 * key's value is printed once, never again.
 */
import { scopes, type Scope } from "../auth/principal.ts";
import type { Settings } from "../settings.ts";
import { validateBody } from "../validation/schema-validator.ts";
import { withStore } from "./command-parts.ts";
import { workspaceFor } from "./workspace-for.ts";

const list = (value: string) => value.split(",").map((item) => item.trim());

export async function keysCreate(
  settings: Readonly<Settings>,
  input: {
    values: {
      name?: string;
      scopes?: string;
      mode?: string;
      "site-ids"?: string;
      workspace?: string;
    };
  },
) {
  const { values } = input;
  const body = validateBody<{
    name: string;
    scopes: Scope[];
    mode: "live" | "test";
    site_ids?: string[];
  }>("api-key-create", {
    name: values.name ?? "CLI key",
    scopes: list(values.scopes ?? scopes.join(",")),
    mode: values.mode ?? "live",
    ...(values["site-ids"] === undefined ? {} : { site_ids: list(values["site-ids"]) }),
  });
  await withStore(settings, async (parts) => {
    const workspaceId = await workspaceFor(parts, values.workspace);
    const key = await parts.keys.create(workspaceId, body);
    console.log(
      `${key.id}  ${key.scopes.join(",")}  (${key.mode})\n\n  ${key.value}\n\nThis is the only time the value is shown.`,
    );
  });
}

export async function keysList(
  settings: Readonly<Settings>,
  input: { values: { workspace?: string } },
) {
  await withStore(settings, async (parts) => {
    const workspaceId = await workspaceFor(parts, input.values.workspace);
    for (const key of await parts.keys.list(workspaceId)) {
      const state = key.revoked_at === undefined ? "active" : `revoked ${key.revoked_at}`;
      const sites = key.site_ids?.join(",") ?? "all sites";
      console.log(
        `${key.id}  ${key.display}  ${key.name}  ${key.scopes.join(",")}  ${sites}  ${state}`,
      );
    }
  });
}

export async function keysRevoke(
  settings: Readonly<Settings>,
  input: { values: { workspace?: string }; positionals: string[] },
) {
  const id = input.positionals[0] as string;
  await withStore(settings, async (parts) => {
    const workspaceId = await workspaceFor(parts, input.values.workspace);
    await parts.keys.revoke(workspaceId, id);
    console.log(`revoked ${id}`);
  });
}
