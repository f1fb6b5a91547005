/**
 * `--help` and `-h` answer every command and subcommand with its usage, options and an example,
 * and do nothing else: the real CLI in a child process, against a real database holding sites,
 * keys and sealed secrets. After each run the database holds exactly what it held before, no
 * data folder (a generated master key) appeared, no file named `--help` was read, no port was
 * bound and no widget file was written.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "chai";
import { commandTable } from "../core/cli/command-table.ts";
import { synopsis } from "../core/cli/command-spec.ts";
import { freePort, run, runToEnd } from "./helpers/cli-process.ts";
import { dumpDatabase } from "./helpers/database-dump.ts";
import { docPage } from "./helpers/docs.ts";
import {
  createTestDatabase,
  databaseTargets,
  missing,
  type TestDatabase,
} from "./helpers/test-databases.ts";

const repo = fileURLToPath(new URL("..", import.meta.url));

/** Each command and subcommand, with the options its help must name. */
const COMMANDS: { words: string[]; options: string[] }[] = [
  { words: ["serve"], options: [] },
  { words: ["migrate"], options: [] },
  { words: ["validate"], options: [] },
  { words: ["diff"], options: ["--prune", "--remote", "--workspace"] },
  { words: ["sync"], options: ["--dry-run", "--prune", "--remote", "--workspace"] },
  { words: ["pull"], options: ["--remote", "--workspace"] },
  { words: ["adapters", "test"], options: ["--workspace"] },
  { words: ["keys", "create"], options: ["--name", "--scopes", "--mode", "--site-ids"] },
  { words: ["keys", "list"], options: ["--workspace"] },
  { words: ["keys", "revoke"], options: ["--workspace"] },
  { words: ["widget", "info"], options: [] },
  { words: ["widget", "build"], options: ["--out"] },
  { words: ["secrets", "rotate"], options: [] },
  { words: ["workspace", "list"], options: [] },
  { words: ["workspace", "plan"], options: [] },
];

/** The groups, whose help lists their subcommands. */
const GROUPS: { word: string; subcommands: string[] }[] = [
  { word: "adapters", subcommands: ["test"] },
  { word: "keys", subcommands: ["create", "list", "revoke"] },
  { word: "widget", subcommands: ["info", "build"] },
  { word: "secrets", subcommands: ["rotate"] },
  { word: "workspace", subcommands: ["list", "plan"] },
];

/** Runs the CLI to its end, or kills it after 30 s (a `serve` that started instead). */
async function runBriefly(args: string[], cwd: string, env: Record<string, string>) {
  const started = run(args, cwd, env);
  const timer = setTimeout(() => started.child.kill("SIGKILL"), 30_000);
  const code = await started.exited;
  clearTimeout(timer);
  return { code, output: started.output() };
}

const portIsFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });

for (const target of databaseTargets) {
  describe(`sitevoice <command> --help on ${target.label} does nothing but answer`, function () {
    this.timeout(120_000);
    let database: TestDatabase | undefined;
    let cwd: string;
    let env: Record<string, string>;
    let stored: string;

    before(async function () {
      database = await createTestDatabase(target);
      if (database === undefined) missing(this, target.label);
      cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-help-"));
      fs.cpSync(path.join(repo, "sites"), path.join(cwd, "sites"), { recursive: true });
      // What a command that took `--help` for a path would read and complain about.
      fs.writeFileSync(path.join(cwd, "--help"), "business_name: [unclosed\n");
      fs.writeFileSync(path.join(cwd, "-h"), "business_name: [unclosed\n");
      const masterKey = crypto.randomBytes(32).toString("base64");
      const setup = {
        DATABASE_URL: database!.url,
        SITEVOICE_MASTER_KEY: masterKey,
        SITEVOICE_DATA_DIR: path.join(cwd, "setup-data"),
      };
      // Sites with sealed secrets, a workspace and keys: what rotate, sync or revoke would change.
      const synced = await runToEnd(["sync"], cwd, setup);
      if (synced.code !== 0) throw new Error(`sync failed: ${synced.output}`);
      const keyed = await runToEnd(["keys", "create", "--name", "ops"], cwd, setup);
      if (keyed.code !== 0) throw new Error(`keys create failed: ${keyed.output}`);
      env = {
        DATABASE_URL: database!.url,
        SITEVOICE_MASTER_KEY: masterKey,
        // A command that opened the store would generate nothing here; one that did would show.
        SITEVOICE_DATA_DIR: path.join(cwd, "data"),
        HOST: "127.0.0.1",
      };
      stored = await dumpDatabase(database!.url, target.client);
    });
    after(async () => {
      await database?.drop();
      if (cwd) fs.rmSync(cwd, { recursive: true, force: true });
    });

    for (const { words, options } of COMMANDS) {
      for (const flag of ["--help", "-h"]) {
        const command = words.join(" ");
        it(`${command} ${flag} prints its usage, options and an example, and changes nothing`, async () => {
          const port = await freePort();
          const { code, output } = await runBriefly([...words, flag], cwd, {
            ...env,
            PORT: String(port),
          });
          expect(code, output).to.equal(0);
          expect(output).to.include(`usage: sitevoice ${command}`);
          for (const option of [...options, "--help"]) expect(output).to.include(option);
          expect(output).to.include("Example");
          expect(output).not.to.match(
            /\d+ problems? in \d+ files?|Sitevoice listening|^database is up to date$|re-sealed \d/m,
          );
          expect(await dumpDatabase(database!.url, target.client)).to.equal(stored);
          expect(fs.existsSync(path.join(cwd, "data")), "a data folder").to.equal(false);
          expect(fs.existsSync(path.join(cwd, "dist")), "a widget file").to.equal(false);
          expect(await portIsFree(port), "the port is free").to.equal(true);
        });
      }
    }
  });
}

describe("sitevoice --help and the help of each group", function () {
  this.timeout(60_000);
  let cwd: string;

  before(() => {
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), "sitevoice-help-"));
  });
  after(() => fs.rmSync(cwd, { recursive: true, force: true }));

  for (const flag of ["--help", "-h"]) {
    it(`sitevoice ${flag} lists every command, and how to get its help`, async () => {
      const { code, output } = await runBriefly([flag], cwd, {});
      expect(code, output).to.equal(0);
      expect(output).to.include("usage: sitevoice <command>");
      for (const { words } of COMMANDS) expect(output).to.include(`  ${words.join(" ")}`);
      expect(output).to.include("sitevoice <command> --help");
      expect(fs.readdirSync(cwd)).to.deep.equal([]);
    });
  }

  for (const { word, subcommands } of GROUPS) {
    it(`sitevoice ${word} --help lists its subcommands`, async () => {
      const { code, output } = await runBriefly([word, "--help"], cwd, {});
      expect(code, output).to.equal(0);
      for (const sub of subcommands) expect(output).to.include(`sitevoice ${word} ${sub}`);
      expect(fs.readdirSync(cwd)).to.deep.equal([]);
    });
  }

  it("sitevoice help keys create answers as sitevoice keys create --help does", async () => {
    const asked = await runBriefly(["help", "keys", "create"], cwd, {});
    const flagged = await runBriefly(["keys", "create", "--help"], cwd, {});
    expect(asked.code, asked.output).to.equal(0);
    expect(asked.output).to.equal(flagged.output);
  });

  it("refuses an unknown option, naming it and pointing to --help, exit 1", async () => {
    const { code, output } = await runBriefly(["keys", "list", "--nope"], cwd, {});
    expect(code).to.equal(1);
    expect(output.trim()).to.equal(
      "sitevoice: keys list: unknown option --nope (see sitevoice keys list --help)",
    );
    expect(fs.readdirSync(cwd)).to.deep.equal([]);
  });

  it("refuses an unknown subcommand, naming it and pointing to the group's --help, exit 1", async () => {
    const { code, output } = await runBriefly(["keys", "rotate"], cwd, {});
    expect(code).to.equal(1);
    expect(output.trim()).to.equal(
      'sitevoice: unknown keys command "rotate" (see sitevoice keys --help)',
    );
  });

  it("refuses an unknown command, pointing to sitevoice --help, exit 1", async () => {
    const { code, output } = await runBriefly(["serv"], cwd, {});
    expect(code).to.equal(1);
    expect(output.trim()).to.equal('sitevoice: unknown command "serv" (see sitevoice --help)');
  });
});

describe("the CLI page's table and the commands' help agree", () => {
  const rows = docPage("docs/cli.md")
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => /^\| `((?:[^`])+)`/.exec(line)?.[1]?.replace(/\\\|/g, "|"));

  for (const command of commandTable.commands) {
    it(`lists ${command.name} with the usage its --help prints`, () => {
      expect(rows).to.include(synopsis(command));
    });
  }

  it("lists no command the CLI does not have", () => {
    expect(rows).to.have.length(commandTable.commands.length);
  });
});
