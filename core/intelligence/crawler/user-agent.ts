/**
 * The crawler's User-Agent, `Sitevoice-Crawler/<version> (+<contact URL>)`: the product token
 * robots.txt rules are read for (`User-agent: Sitevoice-Crawler`), the version of this package,
 * and where a site owner reads what the crawler does.
 */
import { packageVersion } from "../../util/package-version.ts";

export const CRAWLER_PRODUCT = "Sitevoice-Crawler";

export function crawlerUserAgent(contactUrl: string): string {
  return `${CRAWLER_PRODUCT}/${packageVersion()} (+${contactUrl})`;
}
