export {
  PLUGIN_API_VERSION,
  VoiceProviderUnavailable,
  definePlugin,
  pluginKinds,
} from "./plugin.ts";
export type {
  AuthProvider,
  DataAdapter,
  EventSink,
  InstanceByKind,
  PluginContext,
  PluginDefinition,
  PluginInstance,
  PluginKind,
  PromptTemplateSource,
  SearchOptions,
  VoiceProvider,
  VoiceSession,
  VoiceSessionRequest,
  VoiceTool,
} from "./plugin.ts";
export { PluginHost } from "./plugin-host.ts";
export type {
  PluginHostOptions,
  PluginStatus,
  PluginSummary,
  RegisteredPlugin,
} from "./plugin-host.ts";
export {
  PluginCallError,
  PluginConfigError,
  PluginCreateError,
  PluginLoadError,
} from "./plugin-errors.ts";
export type { PluginConfigIssue } from "./plugin-errors.ts";
