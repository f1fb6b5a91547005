/**
 * The published package as a stranger gets it: `npm pack` of this repository (its `prepack`
 * builds dist/), installed into an empty folder by following docs/plugin-kit.md, whose code blocks
 * are run as written (the one change: `npm install --save-dev sitevoice` installs the tarball), so
 * the guide cannot drift from what works. Its adapter then passes the conformance kit under plain
 * `node --test` and plain `mocha`, in an environment without the TypeScript loader this suite
 * runs under.
 */
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect } from "chai";
import { adapterConformanceCases } from "../core/host/testing/index.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));
const GUIDE = path.join(root, "docs", "plugin-kit.md");
const INSTALL_LINE = "npm install --save-dev sitevoice";

interface GuideBlock {
  lang: string;
  /** Where a file block goes, relative to the package folder; undefined for commands. */
  file: string | undefined;
  body: string;
}

/** The fenced blocks of the guide, in order: ```sh commands and ```js file=… files. */
async function guideBlocks(): Promise<GuideBlock[]> {
  const text = await readFile(GUIDE, "utf8");
  const fence = /^```(\w+)(?: file=(\S+))?\n([\s\S]*?)^```$/gm;
  return [...text.matchAll(fence)].map(([, lang, file, body]) => ({
    lang: lang ?? "",
    file,
    body: body ?? "",
  }));
}

/**
 * What a stranger's shell has: a PATH, a HOME (npm's cache, warm from this repository's install)
 * and nothing of this test run's, so no NODE_OPTIONS and no tsx.
 */
function strangersEnv(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
}

async function shell(script: string, cwd: string): Promise<string> {
  try {
    const { stdout } = await run("bash", ["-e", "-c", script], {
      cwd,
      env: strangersEnv(),
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${script}\nfailed:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

describe("docs/plugin-kit.md on the packed package (packs, builds and installs: minutes, not seconds)", function () {
  this.timeout(600_000);
  let work: string;
  let folder: string;
  let runCommands: string[];

  before(async () => {
    work = await mkdtemp(path.join(tmpdir(), "sitevoice-kit-"));
    await run("npm", ["pack", "--pack-destination", work], { cwd: root, maxBuffer: 64 << 20 });
    const tarball = (await readdir(work)).find((name) => name.endsWith(".tgz"));
    if (tarball === undefined) throw new Error(`npm pack left no tarball in ${work}`);
    folder = path.join(work, "acme-sitevoice-jsonfile");
    await mkdir(folder);

    const blocks = await guideBlocks();
    const last = blocks.at(-1);
    if (last?.lang !== "sh") throw new Error("the guide should end with the commands that run");
    runCommands = last.body.trim().split("\n");
    for (const block of blocks.slice(0, -1)) {
      if (block.file !== undefined) {
        await mkdir(path.dirname(path.join(folder, block.file)), { recursive: true });
        await writeFile(path.join(folder, block.file), block.body);
      } else if (block.lang === "sh") {
        if (block.body.includes(INSTALL_LINE)) {
          const line = `npm install --save-dev ${path.join(work, tarball)}`;
          await shell(block.body.replace(INSTALL_LINE, line), folder);
        } else {
          await shell(block.body, folder);
        }
      }
    }
  });

  after(async () => {
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it("installs sitevoice from the tarball, not from the registry", async () => {
    const pkg = JSON.parse(await readFile(path.join(folder, "package.json"), "utf8")) as {
      devDependencies?: Record<string, string>;
    };
    expect(pkg.devDependencies?.sitevoice).to.match(/^file:.*\.tgz$/);
  });

  it("runs the guide's commands with no TypeScript loader", async () => {
    const seen = await shell(
      `node -e 'process.stdout.write(JSON.stringify([process.env.NODE_OPTIONS ?? "", process.execArgv]))'`,
      folder,
    );
    expect(seen).not.to.include("tsx");
    expect(runCommands.join("\n")).not.to.include("tsx");
  });

  it("gives a TypeScript user the types, not any", async () => {
    await writeFile(
      path.join(folder, "types-check.ts"),
      [
        `import type { DataAdapter, Logger } from "sitevoice";`,
        `import type { SqlConnector } from "sitevoice/sql";`,
        `import { CONFORMANCE_DATASET } from "sitevoice/testing";`,
        `export const logger: Logger = { debug() {}, info() {}, warn() {}, error() {} };`,
        `export const count: number = CONFORMANCE_DATASET.length;`,
        `// @ts-expect-error a number is no adapter`,
        `export const adapter: DataAdapter = 5;`,
        `export type Connector = SqlConnector;`,
      ].join("\n"),
    );
    const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc");
    const options = "--noEmit --strict --module nodenext --skipLibCheck --lib es2023,dom";
    await shell(`node ${tsc} ${options} types-check.ts`, folder);
  });

  it("runs the installed CLI from its build: it bundles the widget", async () => {
    const output = await shell("npx --no-install sitevoice widget info", folder);
    expect(output).to.match(/integrity\s+sha384-/);
  });

  it("passes the conformance kit under node --test", async () => {
    const command = runCommands.find((line) => line.startsWith("node --test "));
    expect(command).to.be.a("string");
    const output = await shell(command ?? "", folder);
    expect(output).to.include(`# pass ${adapterConformanceCases().length}`);
    expect(output).to.include("# fail 0");
  });

  it("passes the conformance kit under mocha", async () => {
    const command = runCommands.find((line) => line.startsWith("npx mocha "));
    expect(command).to.be.a("string");
    const output = await shell(command ?? "", folder);
    expect(output).to.include(`${adapterConformanceCases().length} passing`);
    expect(output).not.to.match(/\d+ failing/);
  });
});

describe("the API report", () => {
  for (const report of readdirSync(path.join(root, "api"))) {
    it(`${report} names no pino type: plugins get our own Logger`, async () => {
      const text = await readFile(path.join(root, "api", report), "utf8");
      expect(text).not.to.match(/["']pino["']/);
    });
  }
});
