/** What the widget reads from the service (docs/api/widget.md, "Widget endpoints") and keeps between pages. */
import type { Strings } from "./strings.ts";

export interface Appearance {
  color: string;
  position: "bottom-right" | "bottom-left";
  size: "small" | "medium" | "large";
}

/** `GET /v1/:siteId/config`. */
export interface WidgetConfig {
  site_id: string;
  business_name: string;
  language: string;
  voice: string;
  appearance: Appearance;
  /** The site's language's strings and its overrides; English fills the rest. */
  strings: Partial<Strings>;
  enabled_pages: string[];
  disabled_pages: string[];
  /** Lead capture is on: the panel offers "Talk to a person" and the agent request_callback. */
  callback: boolean;
  version: number;
}

/** How the visitor converses: talking (the microphone, spoken answers) or typing (text answers). */
export type Mode = "voice" | "text";

/** `GET /v1/:siteId/visitor`: the visitor's salted hash of IP and user agent, 64 hex. */
export interface VisitorAnswer {
  user_fingerprint: string;
}

/** The provider half of `POST /v1/:siteId/token` and of `POST /v1/:siteId/session/resume`. */
export interface ProviderSession {
  session_id: string;
  session_expires_at: string;
  ephemeral_token: { value: string; expires_at: string };
  provider: { name: string; model: string; voice: string; connect_url: string };
}

/** `POST /v1/:siteId/token` with `mode: "callback"`: a session to sign a callback request with. */
export interface SigningAnswer {
  session_id: string;
  signing_secret: string;
  session_expires_at: string;
}

export interface TokenAnswer extends ProviderSession {
  signing_secret: string;
  user_fingerprint: string;
}

/** The part of `GET /v1/:siteId/site-intelligence` scroll_to uses. */
export interface CrawledPage {
  url: string;
  title?: string;
  sectionIds: string[];
}

/** One passage of `POST /v1/:siteId/knowledge` (the agent's search_site). */
export interface KnowledgeHit {
  url: string;
  title: string;
  heading: string;
  section_id: string | null;
  text: string;
  score: number;
}

/** One line of the transcript (`POST /v1/:siteId/transcript`). */
export interface Turn {
  role: "visitor" | "assistant" | "function";
  text?: string;
  name?: string;
  arguments?: Record<string, unknown>;
  at: string;
}

/** The conversation as kept in sessionStorage, so a refresh or another page of the site resumes it. */
export interface StoredSession {
  session_id: string;
  mode: Mode;
  signing_secret: string;
  expires_at: string;
  page_url: string;
  started_at: number;
  turns: Turn[];
  /** How many of `turns` the service has confirmed. */
  sent: number;
  function_calls: number;
}
