/**
 * The widget's CSS, applied inside its shadow root only (as a constructed stylesheet, which a
 * site's Content-Security-Policy does not need to allow as inline style). `:host` resets what the
 * page would pass down; nothing here can reach the page.
 */
import { element } from "./dom.ts";

export const WIDGET_CSS = `
:host { all: initial; }
* { box-sizing: border-box; }
.root { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #111827; }
button { font: inherit; cursor: pointer; border: 0; border-radius: 8px; }
/* Every control, the captions log and the panel itself (when its focused control went). */
:focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
.launcher { display: grid; place-items: center; width: var(--size); height: var(--size);
  border-radius: 50%; background: var(--accent); color: var(--on-accent);
  box-shadow: 0 4px 14px rgb(0 0 0 / 0.25); transition: transform 0.15s ease; }
.launcher:hover { transform: scale(1.06); }
.launcher svg { width: 50%; height: 50%; fill: currentColor; }
.panel { position: absolute; bottom: calc(var(--size) + 12px); width: 300px;
  max-width: calc(100vw - 32px); background: #fff; border-radius: 12px; padding: 14px;
  box-shadow: 0 8px 30px rgb(0 0 0 / 0.2); }
.right .panel { right: 0; }
.left .panel { left: 0; }
[hidden] { display: none !important; }
.head { display: flex; align-items: center; justify-content: space-between; gap: 8px;
  font-weight: 600; margin-bottom: 8px; }
.close { background: transparent; color: #374151; width: 28px; height: 28px; font-size: 18px; }
.status { display: flex; align-items: center; gap: 8px; margin: 0 0 10px; }
.dot { width: 10px; height: 10px; border-radius: 50%; background: #9ca3af; flex: none; }
.listening .dot { background: #16a34a; animation: pulse 1.6s ease-in-out infinite; }
.speaking .dot { background: var(--accent); animation: pulse 0.8s ease-in-out infinite; }
.connecting .dot { background: #f59e0b; }
.error .dot { background: #dc2626; }
.notice p { margin: 0 0 10px; color: #374151; }
.notice code { font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; overflow-wrap: anywhere;
  -webkit-user-select: all; user-select: all; background: #f3f4f6; border-radius: 4px;
  padding: 1px 3px; color: #111827; }
.foot { display: flex; justify-content: space-between; gap: 8px; margin-top: 10px; }
.link { padding: 2px 4px; background: transparent; color: #374151; font-size: 12px;
  text-decoration: underline; }
.privacy { margin-inline-start: auto; }
.toggle { display: block; margin: 0 0 4px; margin-inline-start: auto; padding: 2px 4px;
  background: transparent; color: #374151; font-size: 12px; text-decoration: underline; }
.captions { max-height: 180px; overflow-y: auto; margin: 0 0 10px; padding: 6px 8px;
  background: #f9fafb; border: 1px solid #d1d5db; border-radius: 8px; }
.captions:empty { display: none; }
.line { margin: 0 0 6px; overflow-wrap: anywhere; }
.who { font-weight: 600; }
.visitor .who { color: #1e40af; }
.assistant .who { color: #111827; }
.note { color: #4b5563; font-size: 12px; font-style: italic; }
.composer { display: flex; gap: 6px; margin: 0 0 10px; }
input { font: inherit; color: #111827; background: #fff; border: 1px solid #6b7280;
  border-radius: 8px; padding: 7px 9px; min-width: 0; }
.composer input { flex: 1; }
input:focus-visible { outline-offset: 1px; }
.callback { display: grid; gap: 4px; margin: 0 0 10px; }
.callback p { margin: 0 0 6px; color: #374151; }
.callback label { font-size: 12px; font-weight: 600; color: #374151; }
.callback .actions { margin-top: 6px; }
.problem { color: #b91c1c; font-weight: 600; }
[aria-invalid="true"] { border-color: #b91c1c; }
[aria-pressed="true"] { background: #111827; color: #fff; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip: rect(0 0 0 0); white-space: nowrap; }
.actions { display: flex; gap: 8px; flex-wrap: wrap; }
.primary { background: var(--accent); color: var(--on-accent); padding: 8px 14px; }
.secondary { background: #e5e7eb; color: #111827; padding: 8px 14px; }
.hangup { background: #dc2626; color: #fff; padding: 8px 14px; }
@keyframes pulse { 50% { opacity: 0.35; } }
@media (prefers-reduced-motion: reduce) {
  .launcher, .listening .dot, .speaking .dot { transition: none; animation: none; }
  .launcher:hover { transform: none; }
}
`;

/** The CSS into `root`: a constructed stylesheet where the browser has them, else a style element. */
export function adoptStyles(root: ShadowRoot): void {
  if ("adoptedStyleSheets" in root && typeof CSSStyleSheet.prototype.replaceSync === "function") {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(WIDGET_CSS);
    root.adoptedStyleSheets = [sheet];
  } else {
    root.append(element("style", {}, WIDGET_CSS));
  }
}
