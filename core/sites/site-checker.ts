/**
 * A site change judged for every problem at once: the shape and the business rules (SiteRules,
 * shared with `sitevoice validate`), problems found before them (a patch's own shape, a masked
 * secret that may not be kept), and, when anything is wrong, the domains other sites of the
 * workspace hold, so that one answer lists them all. A site with no problem goes on to be written,
 * and the write's transaction checks its domains again: a writer that raced may have taken one.
 */
import type { Store } from "../store/store.ts";
import { problemsError, type Problem } from "../validation/problems-error.ts";
import { domainConflicts, domainsOf } from "./site-domains.ts";
import type { SiteRules, SiteSchema } from "./site-rules.ts";

/** Whose site it is: its workspace, and its id once it exists (its own domains are not taken). */
export interface SiteScope {
  workspaceId: string;
  siteId?: string;
}

/** Whether `field` is `at` or lies inside it (`""` is the whole body). */
const isAtOrBelow = (field: string, at: string) =>
  at === "" || field === at || field.startsWith(`${at}.`);

export class SiteChecker {
  constructor(
    private readonly store: Store,
    private readonly rules: SiteRules,
  ) {}

  /**
   * `data` with its defaults filled in (SiteRules.complete) when nothing is wrong with it; else
   * one ServiceError listing every problem (problemsError): `earlier` ones, those of `schema` and
   * the rules (none for a field, or inside a field, an earlier one names), and the domains another
   * site holds (none for a domain whose field has a problem). The caller must own `data`.
   */
  async accept<T>(
    schema: SiteSchema,
    data: unknown,
    scope: SiteScope,
    earlier: readonly Problem[] = [],
  ): Promise<T> {
    const found = this.rules
      .problems(schema, data)
      .filter((problem) => !earlier.some((known) => isAtOrBelow(problem.field, known.field)));
    const problems = [...earlier, ...found];
    if (problems.length === 0) return this.rules.complete<T>(schema, data);
    const refused = (field: string) => problems.some((p) => isAtOrBelow(field, p.field));
    const site = typeof data === "object" && data !== null ? data : {};
    const domains = domainsOf(site, refused);
    const conflicts = await domainConflicts(this.store, scope.workspaceId, domains, scope.siteId);
    throw problemsError([...problems, ...conflicts]);
  }
}
