/**
 * The route table: every `/v1` route declared in it, in one list, which the app mounts
 * (table/mount.ts) and the OpenAPI document describes (table/openapi.ts). Routes not yet moved
 * into it are still Express routers of their own (http/app.ts).
 */
import { healthRoutes, type HealthRouteParts } from "./health-routes.ts";
import { knowledgeWidgetRoute, type KnowledgeWidgetRouteParts } from "./knowledge-widget-routes.ts";
import { openApiRoute } from "./openapi-routes.ts";
import type { Route } from "./table/route.ts";

export type ApiRouteParts = KnowledgeWidgetRouteParts & HealthRouteParts;

export function apiRoutes(parts: ApiRouteParts): Route[] {
  const routes: Route[] = [...healthRoutes(parts), knowledgeWidgetRoute(parts) as Route];
  routes.push(openApiRoute(() => routes));
  return routes;
}
