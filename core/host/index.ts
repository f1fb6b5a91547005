export {
  PLUGIN_API_VERSION,
  PLUGIN_CALL_DEADLINE_MS,
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
  PasswordHasher,
  PromptTemplateSource,
  SearchOptions,
  VoiceProvider,
  VoiceSession,
  VoiceSessionRequest,
  VoiceTool,
} from "./plugin.ts";
export { OAUTH_REFRESH_WINDOW_SECONDS } from "./oauth-contract.ts";
export type { OAuthAccess, OAuthProvider } from "./oauth-contract.ts";
export { CallEnded } from "./call-control.ts";
export type {
  CallControl,
  CallEvents,
  ControlledSession,
  ResponseUsage,
  TokenCounts,
} from "./call-control.ts";
export { PluginHost } from "./plugin-host.ts";
export type { RegisteredPlugin } from "./check-definition.ts";
export type { PluginHostOptions } from "./plugin-host.ts";
export type { HostLogger, LogMethod, Logger } from "./logger.ts";
export type { PluginStatus, PluginSummary } from "./plugin-status.ts";
export {
  PluginCallError,
  PluginConfigError,
  PluginCreateError,
  PluginLoadError,
} from "./plugin-errors.ts";
export type { PluginConfigIssue } from "./plugin-errors.ts";
