/**
 * The functions the voice agent calls, run in the visitor's page: `search_database` as a signed
 * query, `search_site` as a signed knowledge search (the passages' text bounded for the model),
 * `submit_lead` as a signed lead, `request_callback` as a signed lead with `source: "callback"` and
 * the conversation's latest turns (within the endpoint's bounds), `scroll_to` by scrolling to a section of this page or,
 * when another page of the site has it (from site intelligence), by going there once the model
 * has its answer. What each returns is what the model reads; a failure is `{error}` in words the
 * model can pass on, never a thrown error.
 */
import { ApiError, type Api, type Signer } from "./api.ts";
import type { FunctionCall } from "./call.ts";
import type { Strings } from "./strings.ts";
import type { CrawledPage, KnowledgeHit, Turn } from "./types.ts";

/** The most characters of a passage the model reads (the service's own bound on a passage). */
const MAX_PASSAGE_CHARS = 800;
/** The turns a callback carries, and the characters of each (schemas/lead-create.schema.json). */
const CALLBACK_TURNS = 30;
const CALLBACK_TURN_CHARS = 600;

export interface ToolContext {
  api: Api;
  signer: Signer;
  /** The crawled pages with their section ids (read once per page load). */
  pages(): Promise<CrawledPage[]>;
  /** Goes to another page of the site, after the output was given to the model. */
  navigate(url: string): void;
  /** The conversation so far (a callback request carries its latest turns). */
  turns(): Turn[];
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
      case "request_callback":
        return await requestCallback(call, context);
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

/** What the captions say the agent did ("Looked up menu"), or undefined for a scroll. */
export function toolNote(
  { name, arguments: args }: FunctionCall,
  text: Strings,
): string | undefined {
  const what = (value: unknown) => (typeof value === "string" ? value.slice(0, 80) : "");
  if (name === "search_database") return text.looked_up.replace("{what}", what(args.collection));
  if (name === "search_site") return text.searched_site.replace("{what}", what(args.query));
  if (name === "submit_lead" || name === "request_callback") return text.sent_details;
  return undefined;
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
  const lead = leadOf(call, { name, email, phone, message });
  const answer = await context.api.signed<{ lead_id: string }>(context.signer, "leads", lead);
  return { submitted: true, lead_id: answer.lead_id };
}

/** A person asked for: a lead with the reason on one line and the latest turns, bounded. */
async function requestCallback(call: FunctionCall, context: ToolContext): Promise<unknown> {
  const { name, email, phone } = call.arguments;
  const reason = call.arguments.reason;
  const lead = leadOf(call, {
    name,
    email,
    phone,
    reason: typeof reason === "string" ? reason.replace(/\s+/g, " ") : reason,
  });
  lead.source = "callback";
  lead.turns = context.turns().slice(-CALLBACK_TURNS).map(callbackTurn);
  const answer = await context.api.signed<{ lead_id: string }>(context.signer, "leads", lead);
  return { requested: true, lead_id: answer.lead_id };
}

/** The body of a lead: the page, the call's id, and each field given as non-empty text. */
function leadOf(call: FunctionCall, fields: Record<string, unknown>): Record<string, unknown> {
  const lead: Record<string, unknown> = { page_url: location.href, client_id: call.call_id };
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === "string" && value.trim() !== "") lead[key] = value.trim();
  }
  return lead;
}

/** A turn as a callback carries it: a function's name without its arguments, the text bounded. */
function callbackTurn({ role, text, name, at }: Turn): Turn {
  const turn: Turn = { role, at };
  if (text !== undefined) {
    turn.text =
      text.length > CALLBACK_TURN_CHARS ? `${text.slice(0, CALLBACK_TURN_CHARS - 1)}…` : text;
  }
  if (name !== undefined) turn.name = name;
  return turn;
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
