// The heavy half of the extension (agent runtime, providers and their SDKs,
// tools, diffing), bundled apart as dist/core.js and required on the first
// turn, so activation only compiles the thin host (see load-core.ts).
export { ConversationRuntime } from '../../runtime/loop/conversation';
export { openCheckpointStore } from '../../tools/checkpoints';
export { createTurnContext } from '../../agent/turn-context';
export { forkSession, JsonlSessionStore, listSessions, loadSession } from '../../runtime/session/session';
export { buildSystemPrompt } from '../../runtime/context/system-prompt';
export { discoverCustomAgents } from '../../agent/custom-agents';
export { discoverSkills, skillCutNote, skillListing, skillPromptSection } from '../../runtime/context/skills';
export { nodeInstructionReader } from '../../runtime/context/instructions-node';
export { PathScopedInstructions } from '../../runtime/context/path-scoped';
export { setHostSkills } from '../context/skill-state';
export { splitAttachments, withAttachments } from '../../runtime/session/user-text';
export { cleanUpInterruptedWrites } from '../../tools/files/interrupted-writes';
export { decodeText, detectEncoding, encodeText } from '../../tools/files/text';
export { VsCodeWorkspace } from '../vscode-workspace';
export { unifiedDiff } from '../../runtime/line-diff';
export { createSettingsAwareModelClient } from './model-client';
export { createHostTools, createHostWorkspace } from '../tools';
export { BackgroundCommands } from '../../tools/shell/background';
export { DEFAULT_LIMITS } from '../../tools/registry';
export { itemsFromHistory, PanelBridge } from '../panel/panel-bridge';
export { checkPanelImages } from '../panel/panel-images';
export { diffStats } from '../../webview/tool-view';
export { McpManager } from '../../runtime/mcp/manager';
export { mergeLayers, parseServerMap, readWorkspaceServers } from '../../runtime/mcp/config';
export { parseModelPrices } from '../../runtime/spend/model-prices';
export { CATALOG_FILE, fileCatalogStore, ModelCatalog } from '../../runtime/providers/model-catalog';
export { SessionReview } from '../review/session-review';
export { loadPlugins, mergeHooks, pluginBrings, pluginParts, readPlugin, summarizePlugin } from '../../agent/plugins/plugin-reader';
export { pluginServerLayer } from '../../agent/plugins/plugin-mcp';
export { PluginStore, PluginStoreError } from '../../agent/plugins/plugin-store';
export { createWorktree, removeWorktree, uncommittedChanges, worktreeNameProblem, WorktreeError } from '../../agent/worktrees';
export { mergeWorktreeBranch, planWorktreeApply, writeWorktreePlan, WorktreeApplyError } from '../../agent/worktree-apply';
