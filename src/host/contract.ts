// Fixed names from shared/design/contracts.md, declared once so the manifest
// test, the command registration and the tests cannot drift apart.
export const COMMANDS = [
  'turnstone.focus',
  'turnstone.newSession',
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
] as const;
export type CommandId = (typeof COMMANDS)[number];

export const SETTINGS = [
  'provider',
  'model',
  'baseUrl',
  'maxIterations',
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
  'thinkingBudgetTokens',
  'hooks',
  'bash.timeoutMs',
  'checkpoints.maxFileSizeMB',
  'checkpoints.keepSessions',
  'sandbox',
  'sandbox.network',
  'mcpServers',
  'mcp.callTimeoutMs',
  'mcp.startTimeoutMs',
] as const;
export type SettingKey = (typeof SETTINGS)[number];

export const VIEW_CONTAINER = 'turnstone';
export const CHAT_VIEW = 'turnstone.chat';
export const SECRET_ANTHROPIC_KEY = 'turnstone.anthropicApiKey';
export const SECRET_OPENAI_KEY = 'turnstone.openaiApiKey';
