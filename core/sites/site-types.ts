/** The site types the service works with, from the generated schema types. */
export type { SiteConfig, Adapter, Collection } from "../types/generated/site.ts";
import type { SiteConfig } from "../types/generated/site.ts";

/** A site as the widget endpoints need it: its opened config, its workspace and version. */
export interface PublicSite {
  site: SiteConfig;
  workspaceId: string;
  version: number;
}
