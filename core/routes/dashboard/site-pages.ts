/**
 * The dashboard's sites: the list with a form for a new site, and each site's page (its settings,
 * the embed snippet, its adapter, versions and crawls, the last three in site-tool-pages.ts). A
 * change goes through the same SiteService as the API, so it is checked by the same rules and
 * answered with the same messages `sitevoice validate` prints, each beside its field.
 */
import { Router } from "express";
import { knownAdapterTypes } from "../../sites/adapter-types.ts";
import { decodeCursor, encodeCursor } from "../../http/pagination.ts";
import { isSiteCursor, type SiteView } from "../../sites/site-service.ts";
import { drawFieldProblems } from "./field-problems.ts";
import {
  BUTTON_CHOICES,
  CREATE_CONTROLS,
  SETTINGS_CONTROLS,
  siteFormFields,
  siteFromForm,
} from "./site-form.ts";
import { stringify } from "yaml";
import {
  assertUnchanged,
  savedPage,
  siteFile,
  siteToolPages,
  type SiteToolParts,
} from "./site-tool-pages.ts";
import { textParam } from "./page-params.ts";
import type { Renderer } from "./render.ts";
import { inWorkspace, localsOf, toPage } from "./workspace-context.ts";
import { connectionSection, type OAuthPagesParts } from "./oauth-pages.ts";

/** Sites the list shows at once; more come page by page. */
const SITES_PER_PAGE = 50;

export type SitePagesParts = SiteToolParts &
  OAuthPagesParts & {
    settings: { publicBaseUrl: string };
  };

export function sitePages(parts: SitePagesParts, render: Renderer): Router {
  const router = Router();
  const { sites } = parts;

  router.get("/sites", inWorkspace, async (req, res) => {
    const { workspace, principal } = localsOf(res);
    const after = decodeCursor(textParam(req, "cursor"), isSiteCursor);
    const page = await sites.list(principal, { limit: SITES_PER_PAGE, after });
    render.page(res, "sites", `Sites of ${workspace.name}`, {
      sites: page.items,
      next: page.next === undefined ? undefined : encodeCursor(page.next),
      industries: parts.rules.industries(),
    });
  });

  router.post("/sites", inWorkspace, async (req, res) => {
    const { workspace, principal } = localsOf(res);
    const body = siteFromForm(req.body as Record<string, unknown>, { creating: true });
    try {
      const site = await sites.create(principal, body, "dashboard");
      toPage(res, `/dashboard/sites/${site.site_id}?workspace_id=${workspace.id}`);
    } catch (error) {
      const what = "The site was not added";
      if (!drawFieldProblems(render, res, error, CREATE_CONTROLS, what)) throw error;
    }
  });

  router.get("/sites/:id", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const site = await sites.get(principal, req.params.id as string);
    render.page(res, "site", site.business_name, {
      site,
      form: siteFormFields(site),
      ...BUTTON_CHOICES,
      industries: parts.rules.industries(),
      saved: /^\d{1,9}$/.test(String(req.query.saved)) ? req.query.saved : undefined,
      snippet: embedSnippet(parts.settings.publicBaseUrl, site),
      adapterYaml: site.adapter === undefined ? "" : yamlOf(site.adapter),
      adapterTypes: knownAdapterTypes(parts.plugins),
      siteYaml: yamlOf(siteFile(site)),
      connection: await connectionSection(parts, principal, site, req.query.oauth),
    });
  });

  router.post("/sites/:id", inWorkspace, async (req, res) => {
    const { principal } = localsOf(res);
    const siteId = req.params.id as string;
    const current = await sites.get(principal, siteId);
    assertUnchanged(req, current);
    const changes = siteFromForm(req.body as Record<string, unknown>, { current });
    try {
      savedPage(render, res, current, await sites.patch(principal, siteId, changes, "dashboard"));
    } catch (error) {
      const what = "The settings were not saved";
      if (!drawFieldProblems(render, res, error, SETTINGS_CONTROLS, what)) throw error;
    }
  });

  router.use(siteToolPages(parts, render));
  return router;
}

const yamlOf = (value: unknown) => stringify(value, { lineWidth: 0 });

/** The script tag a site's pages carry, served from this installation. */
export function embedSnippet(publicBaseUrl: string, site: Pick<SiteView, "site_id">): string {
  const base = publicBaseUrl.replace(/\/+$/, "");
  return `<script src="${base}/widget.js" data-site-id="${site.site_id}" async></script>`;
}
