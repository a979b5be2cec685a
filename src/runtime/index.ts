// The agent core's public surface for the extension host and the CLI.
export * from './types';
export * from './errors';
export * from './events';
export * from './conversation';
export * from './permissions';
export { parseRule, parseRules, suggestRule, type PermissionRule } from './permission-rules';
export { analyseCommand, analyseShell } from './shell-analysis';
export { type CommandAnalysis, type ShellCommand } from './shell-command';
export { loadShellParser } from './shell-parser';
export * from './hooks';
export * from './session';
export { normaliseHistory, historyProblem, ABORTED_RESULT, TURN_ABORTED_NOTE } from './history';
export { autoCompactThreshold, DEFAULT_KEEP_RECENT, COMPACT_ENV } from './compaction';
export { compactionThreshold, modelLimits, DEFAULT_AUTO_COMPACT_PERCENT, type ContextInfo, type ModelLimits } from './context-window';
export { type QueuedInput } from './steering';
export * from './usage';
export { splitAttachments, withAttachments, type PromptAttachment } from './user-text';
