// Fixed names from shared/design/contracts.md, declared once so the manifest
// test, the command registration and the tests cannot drift apart.
export const COMMANDS = [
  'turnstone.focus',
  'turnstone.newSession',
  'turnstone.newSessionInWorktree',
  'turnstone.sendPrompt',
  'turnstone.askAboutSelection',
  'turnstone.stop',
  'turnstone.setApiKey',
  'turnstone.selectModel',
  'turnstone.compact',
  'turnstone.undoTurn',
  'turnstone.resumeSession',
  'turnstone.showLog',
  'turnstone.restoreCheckpoint',
  'turnstone.mcp.showServers',
  'turnstone.plugins.add',
  'turnstone.plugins.manage',
] as const;
export type CommandId = (typeof COMMANDS)[number];

/**
 * Commands beyond the contract: contributed (so menus can name them) but for
 * the product's own surfaces, not the contract. Allow/Deny answer the pending
 * permission request from the proposal's diff editor title bar; in the command
 * palette they show only while a request waits (menus.commandPalette `when`).
 * Edit Proposal makes a waiting proposal editable (it opens read-only).
 */
export const APPROVAL_COMMANDS = ['turnstone.allowRequest', 'turnstone.denyRequest', 'turnstone.editProposal'] as const;
/** Issue 44, review: Keep / Undo per hunk (the gutter's peek), per file and for the session's group; never in the palette. */
export const REVIEW_COMMANDS = ['turnstone.review.keep', 'turnstone.review.undo', 'turnstone.review.keepFile', 'turnstone.review.undoFile', 'turnstone.review.keepAll', 'turnstone.review.undoAll', 'turnstone.review.sendToAgent'] as const;
/** Issue 43, the Sessions view's row actions: Show, Stop, Remove, Review Changes (a row's key or item as argument); never in the palette. */
export const SESSION_COMMANDS = ['turnstone.sessions.show', 'turnstone.sessions.stop', 'turnstone.sessions.remove', 'turnstone.sessions.review'] as const;
/** Issue 44, a worktree session's work brought home: Apply (the source control's title, a worktree row) and Merge Branch; in the palette too (they ask which session). */
export const WORKTREE_REVIEW_COMMANDS = ['turnstone.review.applyWorktree', 'turnstone.review.mergeWorktree'] as const;
/** Issue 44, "Review Changes": the Source Control view and the first diff left to review; in the palette, on a session's row (through turnstone.sessions.review) and on the panel's edit cards. */
export const REVIEW_SHOW_COMMANDS = ['turnstone.review.show'] as const;
export const INTERNAL_COMMANDS = [...APPROVAL_COMMANDS, ...REVIEW_COMMANDS, ...SESSION_COMMANDS, ...WORKTREE_REVIEW_COMMANDS, ...REVIEW_SHOW_COMMANDS] as const;
export type InternalCommandId = (typeof INTERNAL_COMMANDS)[number];

/** Context keys the host sets for `when` clauses. */
export const CONTEXT_PERMISSION_PENDING = 'turnstone.permissionPending';
/** The proposed-side URIs of edits waiting for an answer (`resource in turnstone.pendingProposals`). */
export const CONTEXT_PENDING_PROPOSALS = 'turnstone.pendingProposals';
/** Those of them the user chose to edit (`resource not in turnstone.editableProposals` shows Edit Proposal). */
export const CONTEXT_EDITABLE_PROPOSALS = 'turnstone.editableProposals';
/**
 * The names of the files with changes left to review (`resourceFilename in turnstone.reviewFiles`: Keep / Undo from
 * the keyboard). Names, not URIs: in a remote window the workbench's `resource` is a vscode-remote URI the extension
 * host never sees; the command itself finds the file and the hunk at the cursor.
 */
export const CONTEXT_REVIEW_FILES = 'turnstone.reviewFiles';
/** True while an open session runs in a worktree (the Turnstone source control's Apply). */
export const CONTEXT_WORKTREE_SESSIONS = 'turnstone.worktreeSessions';

export const SETTINGS = [
  'provider',
  'model',
  'baseUrl',
  'bedrock.region',
  'vertex.region',
  'vertex.projectId',
  'maxIterations',
  'loopGuard.repeats',
  'notifications',
  'edits.review',
  'permissionMode',
  'permissions.allow',
  'permissions.deny',
  'permissions.ask',
  'permissions.sensitiveFiles',
  'autoCompactInputTokens',
  'autoCompactPercent',
  'contextWindow',
  'maxOutputTokens',
  'maxCostPerTurnUsd',
  'maxCostPerSessionUsd',
  'modelPrices',
  'thinkingBudgetTokens',
  'hooks',
  'bash.timeoutMs',
  'bash.maxBackground',
  'bash.outputCapMB',
  'bash.env.passthrough',
  'agents.maxParallel',
  'sessions.maxParallel',
  'agents.model',
  'memory.enabled',
  'memory.dir',
  'checkpoints.maxFileSizeMB',
  'checkpoints.keepSessions',
  'diagnostics.afterEdit',
  'diagnostics.waitMs',
  'sandbox',
  'sandbox.network',
  'sandbox.hideSecrets',
  'mcpServers',
  'mcp.callTimeoutMs',
  'mcp.startTimeoutMs',
  'approvalDialog',
  'webFetch.allowPrivateNetwork',
  'browser.executablePath',
  'browser.headless',
  'worktrees.dir',
  'plugins.enabled',
] as const;
export type SettingKey = (typeof SETTINGS)[number];

export const VIEW_CONTAINER = 'turnstone';
export const CHAT_VIEW = 'turnstone.chat';
export const SECRET_ANTHROPIC_KEY = 'turnstone.anthropicApiKey';
export const SECRET_OPENAI_KEY = 'turnstone.openaiApiKey';
