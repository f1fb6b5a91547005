/**
 * `sitevoice/testing`: what a third party needs to test a plugin the way the built-in ones are
 * tested: a host made as the service makes its own, the adapter conformance kit, and a realistic
 * voice session request.
 */
export {
  adapterConformanceCases,
  conformanceCollection,
  conformanceQuery,
} from "./adapter-conformance-cases.ts";
export type { ConformanceCase, ConformanceSubject } from "./adapter-conformance-cases.ts";
export { describeAdapterConformance } from "./adapter-conformance.ts";
export type { ConformanceRunner } from "./adapter-conformance.ts";
export { CONFORMANCE_DATASET, CONFORMANCE_FIELDS } from "./conformance-dataset.ts";
export type { ConformanceProduct } from "./conformance-dataset.ts";
export type {
  AdapterQuery,
  CollectionIntrospection,
  CollectionSpec,
  SearchResult,
} from "../../search/search-types.ts";
export { testPluginHost } from "./test-host.ts";
export { exampleVoiceSessionRequest } from "./example-voice-request.ts";
export { EXAMPLE_SITES_DIR, exampleSite } from "./example-sites.ts";
