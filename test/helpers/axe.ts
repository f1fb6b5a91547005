/** axe-core (the pinned version in package.json) run in a page of a browser test. */
import fs from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The WCAG 2.1 A and AA rules: what the widget promises to pass (issue 34). */
const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

interface Violation {
  id: string;
  impact: string;
  nodes: { target: string[] }[];
}

/** axe's violations in the page, or only inside `within` (a selector) when given. */
async function violations(page: Page, tags?: string[], within?: string): Promise<Violation[]> {
  await page.evaluate(AXE);
  return page.evaluate(
    async ({ values, include }) => {
      const axe = (
        window as unknown as { axe: { run(context: unknown, options: object): Promise<unknown> } }
      ).axe;
      const options = values === undefined ? {} : { runOnly: { type: "tag", values } };
      const context = include === undefined ? document : { include: [include] };
      return ((await axe.run(context, options)) as { violations: Violation[] }).violations;
    },
    { values: tags, include: within },
  );
}

const described = (v: Violation) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`;

/** axe-core's serious and critical violations on the page (all its rules), by rule and target. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return (await violations(page))
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(described);
}

/**
 * Every violation of a WCAG 2.1 A or AA rule, whatever its impact: on the page, or inside
 * `within` (a selector, such as an embedded widget's element, its shadow root included).
 */
export async function wcagViolations(page: Page, within?: string): Promise<string[]> {
  return (await violations(page, WCAG_21_AA, within)).map(described);
}
