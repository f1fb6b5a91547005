/**
 * The functions the voice agent calls, run in the visitor's page: `search_database` as a signed
 * query, `search_site` as a signed knowledge search (the passages' text bounded for the model),
 * `submit_lead` as a signed lead, `scroll_to` by scrolling to a section of this page or,
 * when another page of the site has it (from site intelligence), by going there once the model
 * has its answer. What each returns is what the model reads; a failure is `{error}` in words the
 * model can pass on, never a thrown error.
 */
import { ApiError, type Api, type Signer } from "./api.ts";
import type { FunctionCall } from "./call.ts";
import type { CrawledPage, KnowledgeHit } from "./types.ts";

/** The most characters of a passage the model reads (the service's own bound on a passage). */
const MAX_PASSAGE_CHARS = 800;

export interface ToolContext {
  api: Api;
  signer: Signer;
  /** The crawled pages with their section ids (read once per page load). */
  pages(): Promise<CrawledPage[]>;
  /** Goes to another page of the site, after the output was given to the model. */
  navigate(url: string): void;
}

export async function runTool(call: FunctionCall, context: ToolContext): Promise<unknown> {
  try {
    switch (call.name) {
      case "search_database":
        return await context.api.signed(context.signer, "query", call.arguments);
      case "search_site":
        return await searchSite(call, context);
      case "submit_lead":
        return await submitLead(call, context);
      case "scroll_to":
        return await scrollTo(call.arguments.section_id, context);
      default:
        return { error: `There is no function named ${call.name}` };
    }
  } catch (error) {
    if (error instanceof ApiError) return { error: error.message, code: error.code };
    return { error: "The function failed" };
  }
}

/** The passages for the model: where each is (for scroll_to) and its text, bounded. */
async function searchSite(call: FunctionCall, context: ToolContext): Promise<unknown> {
  const { query, limit } = call.arguments;
  const answer = await context.api.signed<{ items: KnowledgeHit[] }>(
    context.signer,
    "knowledge",
    limit === undefined ? { query } : { query, limit },
  );
  const items = answer.items.map(({ url, title, heading, section_id, text }) => ({
    url,
    title,
    heading,
    section_id,
    text: text.length > MAX_PASSAGE_CHARS ? `${text.slice(0, MAX_PASSAGE_CHARS - 1)}…` : text,
  }));
  return { found: items.length, items };
}

async function submitLead(call: FunctionCall, context: ToolContext): Promise<unknown> {
  const { name, email, phone, message } = call.arguments;
  const lead: Record<string, unknown> = { page_url: location.href, client_id: call.call_id };
  for (const [key, value] of Object.entries({ name, email, phone, message })) {
    if (typeof value === "string" && value.trim() !== "") lead[key] = value.trim();
  }
  const answer = await context.api.signed<{ lead_id: string }>(context.signer, "leads", lead);
  return { submitted: true, lead_id: answer.lead_id };
}

async function scrollTo(sectionId: unknown, context: ToolContext): Promise<unknown> {
  if (typeof sectionId !== "string" || sectionId === "") {
    return { error: "section_id is required" };
  }
  const here = document.getElementById(sectionId);
  if (here !== null) {
    const reduced = matchMedia("(prefers-reduced-motion: reduce)").matches;
    here.scrollIntoView({ behavior: reduced ? "auto" : "smooth", block: "start" });
    return { scrolled: true, section_id: sectionId };
  }
  const page = (await context.pages()).find((p) => p.sectionIds.includes(sectionId));
  const target = page === undefined ? undefined : sameSite(page.url);
  if (target === undefined) {
    return { error: `There is no section ${sectionId} on this page or on another of the site` };
  }
  target.hash = sectionId;
  // After the model has read the answer: the conversation resumes on the new page.
  setTimeout(() => context.navigate(target.href), 300);
  return { navigating: true, page_url: target.href, title: page?.title };
}

/** The page's URL when it is on this page's origin; the agent never sends a visitor elsewhere. */
function sameSite(url: string): URL | undefined {
  try {
    const target = new URL(url, location.href);
    return target.origin === location.origin ? target : undefined;
  } catch {
    return undefined;
  }
}
