// The agent core's public surface for the extension host and the CLI.
export * from './types';
export * from './errors';
export * from './events';
export * from './loop/conversation';
export * from './policy/permissions';
export { parseRule, parseRules, suggestRule, type PermissionRule } from './policy/permission-rules';
export { analyseCommand, analyseShell } from './policy/shell-analysis';
export { type CommandAnalysis, type ShellCommand } from './policy/shell-command';
export { loadShellParser } from './policy/shell-parser';
export * from './policy/hooks';
export * from './session/session';
export { normaliseHistory, historyProblem, ABORTED_RESULT, TURN_ABORTED_NOTE } from './session/history';
export { autoCompactThreshold, DEFAULT_KEEP_RECENT, COMPACT_ENV } from './context/compaction';
export { compactionThreshold, modelLimits, DEFAULT_AUTO_COMPACT_PERCENT, type ContextInfo, type ModelLimits } from './context/context-window';
export { type QueuedInput } from './loop/steering';
export * from './spend/usage';
export { splitAttachments, withAttachments, type PromptAttachment } from './session/user-text';
