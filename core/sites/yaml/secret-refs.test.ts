import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "chai";
import { checkReferences, hasReference, resolveReferences } from "./secret-refs.ts";

const site = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  business_name: "A",
  ...extra,
  adapter: { type: "rest", config },
});

describe("secret references", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "sv-refs-"));
    await writeFile(join(dir, "token.txt"), "tok_from_file\n");
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("resolves ${env:…}, ${file:…} (relative to the file, one newline dropped) and fallbacks", () => {
    const { data, problems } = resolveReferences(
      site({
        auth: { type: "bearer", value: "${file:token.txt}" },
        password: "${env:DB_PW}",
        connectionString: "postgres://u:${env:DB_PW}@db/x",
        api_key: "${env:UNSET:-fallback}",
        token: "$${env:LITERAL}",
      }),
      { env: { DB_PW: "pw!" }, baseDir: dir },
    );
    expect(problems).to.deep.equal([]);
    expect(data?.adapter.config).to.deep.equal({
      auth: { type: "bearer", value: "tok_from_file" },
      password: "pw!",
      connectionString: "postgres://u:pw!@db/x",
      api_key: "fallback",
      token: "${env:LITERAL}",
    });
  });

  it("reports every unset variable and missing file at its field, resolving nothing", () => {
    const { data, problems } = resolveReferences(
      site({ password: "${env:NOPE}", auth: { value: "${file:missing.txt}" } }),
      { env: { NOPE: "" }, baseDir: dir },
    );
    expect(data).to.equal(undefined);
    expect(problems).to.deep.equal([
      {
        field: "adapter.config.password",
        message: "environment variable NOPE is not set (referenced as ${env:NOPE})",
      },
      { field: "adapter.config.auth.value", message: "secret file missing.txt: not found" },
    ]);
  });

  it("refuses references outside secret fields, unknown kinds and bad names", () => {
    const problems = checkReferences(
      site(
        { baseUrl: "https://${env:HOST}", token: "${vault:x}", password: "${env:1BAD}" },
        { business_name: "${env:NAME}", personality: "costs ${price}" },
      ),
    );
    expect(problems.map((p) => p.field)).to.deep.equal([
      "business_name",
      "adapter.config.baseUrl",
      "adapter.config.token",
      "adapter.config.password",
    ]);
    expect(problems[2]?.message).to.equal(
      "unknown reference ${vault:…}; use ${env:NAME} or ${file:path}",
    );
    expect(hasReference("a $${env:X} b")).to.equal(false);
    expect(hasReference("${env:X}")).to.equal(true);
  });
});
