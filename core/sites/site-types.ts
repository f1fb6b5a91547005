/** The site types the service works with, from the generated schema types. */
export type { SiteConfig, Adapter, Collection } from "../types/generated/site.ts";
