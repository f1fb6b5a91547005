/**
 * The embeddable widget: `<script src="{service}/widget.js" data-site-id="…" async></script>`.
 * It reads the site id from its own tag and the service's address from its own `src`, asks for
 * the site's config with the page's Origin, and shows nothing where the site does not allow this
 * origin (one console warning for the site's owner) or this path (`enabled_pages`,
 * `disabled_pages`). Otherwise it adds the launcher, and resumes a conversation this tab had open
 * on an earlier page, and announces what it decided (`sitevoice:ready`). The same file serves
 * every site.
 */
import { pagePatternTest } from "../../core/sites/page-patterns.ts";
import { Api, ApiError } from "./api.ts";
import { Conversation } from "./conversation.ts";
import { loadSession } from "./storage.ts";
import { WidgetUi } from "./ui.ts";

const PREFIX = "[Sitevoice]";

/** Read now: `document.currentScript` is only set while the script first runs. */
const script = document.currentScript as HTMLScriptElement | null;

async function boot(tag: HTMLScriptElement | null): Promise<void> {
  const siteId = tag?.dataset.siteId;
  if (tag === null || siteId === undefined || siteId === "") {
    console.warn(`${PREFIX} the widget's script tag needs a data-site-id attribute`);
    return;
  }
  const started = Symbol.for(`sitevoice:${siteId}`);
  const registry = window as unknown as Record<symbol, boolean>;
  if (registry[started]) return;
  registry[started] = true;

  const api = new Api(new URL(".", tag.src).href.replace(/\/$/, ""), siteId);
  let config;
  try {
    config = await api.config();
  } catch (error) {
    console.warn(`${PREFIX} ${whyHidden(error, siteId)}`);
    announce(siteId, false, error instanceof ApiError ? error.code : "unreachable");
    return;
  }
  if (!pagePatternTest(config)(location.pathname)) {
    announce(siteId, false, "page_excluded");
    return;
  }
  await bodyReady();

  const ui: WidgetUi = new WidgetUi(config, {
    start: () => void conversation.start(),
    talk: () => void conversation.talk(),
    hangUp: () => void conversation.hangUp(),
    type: (message) => void conversation.type(message),
    mute: (muted) => conversation.mute(muted),
    callback: (fields): Promise<boolean> => conversation.callback(fields),
    visitorId: () => api.visitor(),
  });
  const conversation = new Conversation(api, config, ui);
  ui.mount();
  addEventListener("pagehide", () => conversation.pageHidden());
  const stored = loadSession(siteId);
  if (stored !== undefined) void conversation.resume(stored);
  announce(siteId, true);
}

/**
 * `sitevoice:ready` on window once the widget has decided: `{site_id, shown, reason?}`, for a
 * site's own scripts (and tests) to know whether the launcher is there, and why not.
 */
function announce(siteId: string, shown: boolean, reason?: string): void {
  const detail =
    reason === undefined ? { site_id: siteId, shown } : { site_id: siteId, shown, reason };
  dispatchEvent(new CustomEvent("sitevoice:ready", { detail }));
}

function whyHidden(error: unknown, siteId: string): string {
  const code = error instanceof ApiError ? error.code : "";
  if (code === "origin_not_allowed") {
    return (
      `${location.origin} is not a registered domain of the site "${siteId}", so the widget ` +
      "stays hidden: add it to the site's domain or additional_domains."
    );
  }
  if (code === "site_not_found") return `there is no site "${siteId}"; check data-site-id`;
  return `the widget could not load its configuration (${(error as Error).message})`;
}

function bodyReady(): Promise<void> {
  if (document.body !== null) return Promise.resolve();
  return new Promise((resolve) =>
    document.addEventListener("DOMContentLoaded", () => resolve(), { once: true }),
  );
}

void boot(script);
