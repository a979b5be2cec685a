// The `turnstone.*` settings as one typed object, whoever read them: the
// extension from VS Code's configuration (host/settings.ts), the CLI from a
// `--settings <file>` JSON object of the same keys (parseSettingsObject below).
// Both then build a turn's context from it with the same factory (turn-context.ts).
import { type HooksConfig } from '../runtime/policy/hooks';
import { type PermissionMode } from '../runtime/policy/permissions';

/** `turnstone.provider` values (package.json's enum lists the same). */
export const PROVIDER_NAMES = ['anthropic', 'openai', 'openai-compatible', 'bedrock', 'vertex', 'vscode-lm'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
export type ApprovalDialog = 'modal' | 'notification' | 'panel';

export interface TurnstoneSettings {
  provider: ProviderName;
  model: string;
  baseUrl: string;
  /** turnstone.bedrock.region; empty: AWS_REGION / AWS_DEFAULT_REGION. */
  bedrockRegion: string;
  /** turnstone.vertex.region; empty: CLOUD_ML_REGION / GOOGLE_CLOUD_LOCATION. */
  vertexRegion: string;
  /** turnstone.vertex.projectId; empty: ANTHROPIC_VERTEX_PROJECT_ID / GOOGLE_CLOUD_PROJECT, else the credentials' project. */
  vertexProjectId: string;
  maxIterations: number;
  /** turnstone.edits.review: edits ask before they are written, or are written and reviewed after the turn. */
  editsReview: 'beforeWrite' | 'afterTurn';
  /** turnstone.loopGuard.repeats: the same call meeting the same outcome this often stops the turn (0: never). */
  loopGuardRepeats: number;
  permissionMode: PermissionMode;
  allow: string[];
  deny: string[];
  ask: string[];
  /** Globs extending the built-in list of files whose reads ask. */
  sensitiveFiles: string[];
  /** Only when the user set it (contracts.md: an absolute override of autoCompactPercent). */
  autoCompactInputTokens: number | undefined;
  autoCompactPercent: number;
  contextWindow: number;
  maxOutputTokens: number;
  maxCostPerTurnUsd: number;
  maxCostPerSessionUsd: number;
  /** `turnstone.modelPrices` as written: parsed with the core (parseModelPrices) when a turn is set up, not at activation. */
  modelPrices: unknown;
  thinkingBudgetTokens: number;
  hooks: HooksConfig;
  bashTimeoutMs: number;
  /** turnstone.bash.maxBackground: background commands running at once (0: none may start). */
  bashMaxBackground: number;
  /** turnstone.bash.outputCapMB: most output kept on disk per command (head and tail past it). */
  bashOutputCapMB: number;
  /** turnstone.bash.env.passthrough: credential-looking variables that commands and hooks may inherit all the same. */
  bashEnvPassthrough: string[];
  sandbox: 'auto' | 'off';
  sandboxNetwork: 'allow' | 'deny';
  /** turnstone.sandbox.hideSecrets: the workspace's secret files unreadable to sandboxed commands (only an explicit false turns it off). */
  sandboxHideSecrets: boolean;
  mcpCallTimeoutMs: number;
  mcpStartTimeoutMs: number;
  /** How a permission request asks: a modal (default), a notification, or only the panel and the diff editor. */
  approvalDialog: ApprovalDialog;
  checkpointsMaxFileSizeMB: number;
  checkpointsKeepSessions: number;
  /** turnstone.webFetch.allowPrivateNetwork: web_fetch may reach loopback, private and link-local addresses. */
  webFetchAllowPrivateNetwork: boolean;
  /** turnstone.browser.executablePath: the browser the browser tool drives; empty: the first found on the usual paths. */
  browserExecutablePath: string;
  /** turnstone.browser.headless: the browser runs without a window (default true). */
  browserHeadless: boolean;
  /** VS Code only (the CLI has no language servers): problems after edits, and how long to wait for them. */
  diagnosticsAfterEdit: boolean;
  diagnosticsWaitMs: number;
  /** turnstone.agents.maxParallel: subagents running at once (more wait for a free place). */
  agentsMaxParallel: number;
  /** turnstone.sessions.maxParallel: chat sessions open at once in an editor window (issue 43). */
  sessionsMaxParallel: number;
  /** turnstone.agents.model: the model subagents use unless their agent names one; empty: the session's. */
  agentsModel: string;
  /** turnstone.memory.enabled: the memory tool is offered (and the prompt tells the model to use it). */
  memoryEnabled: boolean;
  /** turnstone.memory.dir: where the notes live (absolute, or relative to the workspace); empty: per workspace in the user's data. */
  memoryDir: string;
  /** turnstone.plugins.enabled: ids (`<plugin>@<marketplace>`) of installed plugins that are on. */
  pluginsEnabled: string[];
  /** turnstone.worktrees.dir: where session worktrees go (absolute or `~/…`); empty: `<user data>/turnstone/worktrees`. */
  worktreesDir: string;
}

/** The manifest's description of one setting (package.json `contributes.configuration.properties`). */
export interface SettingSchema {
  type?: string | string[];
  enum?: readonly unknown[];
  default?: unknown;
  minimum?: number;
}

/** Each setting's key (after `turnstone.`) and the field of TurnstoneSettings it fills. */
const FIELDS: Record<string, keyof TurnstoneSettings> = {
  provider: 'provider',
  model: 'model',
  baseUrl: 'baseUrl',
  'bedrock.region': 'bedrockRegion',
  'vertex.region': 'vertexRegion',
  'vertex.projectId': 'vertexProjectId',
  maxIterations: 'maxIterations',
  'loopGuard.repeats': 'loopGuardRepeats',
  'edits.review': 'editsReview',
  permissionMode: 'permissionMode',
  'permissions.allow': 'allow',
  'permissions.deny': 'deny',
  'permissions.ask': 'ask',
  'permissions.sensitiveFiles': 'sensitiveFiles',
  autoCompactInputTokens: 'autoCompactInputTokens',
  autoCompactPercent: 'autoCompactPercent',
  contextWindow: 'contextWindow',
  maxOutputTokens: 'maxOutputTokens',
  maxCostPerTurnUsd: 'maxCostPerTurnUsd',
  maxCostPerSessionUsd: 'maxCostPerSessionUsd',
  modelPrices: 'modelPrices',
  thinkingBudgetTokens: 'thinkingBudgetTokens',
  hooks: 'hooks',
  'bash.timeoutMs': 'bashTimeoutMs',
  'bash.maxBackground': 'bashMaxBackground',
  'bash.outputCapMB': 'bashOutputCapMB',
  'bash.env.passthrough': 'bashEnvPassthrough',
  sandbox: 'sandbox',
  'sandbox.network': 'sandboxNetwork',
  'sandbox.hideSecrets': 'sandboxHideSecrets',
  'mcp.callTimeoutMs': 'mcpCallTimeoutMs',
  'mcp.startTimeoutMs': 'mcpStartTimeoutMs',
  approvalDialog: 'approvalDialog',
  'checkpoints.maxFileSizeMB': 'checkpointsMaxFileSizeMB',
  'checkpoints.keepSessions': 'checkpointsKeepSessions',
  'webFetch.allowPrivateNetwork': 'webFetchAllowPrivateNetwork',
  'browser.executablePath': 'browserExecutablePath',
  'browser.headless': 'browserHeadless',
  'diagnostics.afterEdit': 'diagnosticsAfterEdit',
  'diagnostics.waitMs': 'diagnosticsWaitMs',
  'agents.maxParallel': 'agentsMaxParallel',
  'sessions.maxParallel': 'sessionsMaxParallel',
  'agents.model': 'agentsModel',
  'memory.enabled': 'memoryEnabled',
  'memory.dir': 'memoryDir',
  'worktrees.dir': 'worktreesDir',
  'plugins.enabled': 'pluginsEnabled',
};

/** Keys a settings object may hold that have no field here: read by the CLI's MCP set-up from the same object. */
const OTHER_KEYS = new Set(['mcpServers']);

export class SettingsError extends Error {
  override readonly name = 'SettingsError';
  readonly kind = 'invalid_settings';
}

function typeMatches(value: unknown, schema: SettingSchema): boolean {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 0) return true;
  return types.some((t) => {
    switch (t) {
      case 'string':
        return typeof value === 'string';
      case 'boolean':
        return typeof value === 'boolean';
      case 'integer':
        return Number.isInteger(value);
      case 'number':
        return typeof value === 'number' && Number.isFinite(value);
      case 'array':
        return Array.isArray(value) && value.every((v) => typeof v === 'string');
      case 'object':
        return typeof value === 'object' && value !== null && !Array.isArray(value);
      default:
        return false;
    }
  });
}

/**
 * The settings of a JSON object of `turnstone.*` keys, as in VS Code's settings.json
 * (`{"turnstone.permissions.allow": ["bash(npm test)"], "turnstone.hooks": {…}}`), on top of the
 * manifest's defaults. Every key and value is checked against the manifest: an unknown key or a value of
 * the wrong type is an error naming it, never silently ignored (a misspelt deny rule must not pass).
 */
export function parseSettingsObject(json: unknown, schema: Readonly<Record<string, SettingSchema>>, source: string): TurnstoneSettings {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new SettingsError(`${source} must hold a JSON object of turnstone.* settings, e.g. {"turnstone.permissions.allow": ["bash(npm test)"]}`);
  }
  const problems: string[] = [];
  const given = new Map<string, unknown>();
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) {
    const name = key.startsWith('turnstone.') ? key.slice('turnstone.'.length) : undefined;
    const spec = schema[key];
    if (name === undefined || !spec || (!(name in FIELDS) && !OTHER_KEYS.has(name))) {
      problems.push(`unknown setting "${key}"`);
      continue;
    }
    if (!typeMatches(value, spec) || (spec.enum && !spec.enum.includes(value)) || (spec.minimum !== undefined && typeof value === 'number' && value < spec.minimum)) {
      const expected = spec.enum ? `one of ${spec.enum.map((v) => JSON.stringify(v)).join(', ')}` : `a${spec.type === 'integer' || spec.type === 'array' || spec.type === 'object' ? 'n' : ''} ${String(spec.type)}${spec.type === 'array' ? ' of strings' : ''}`;
      problems.push(`"${key}" must be ${expected}, not ${JSON.stringify(value)}`);
      continue;
    }
    given.set(name, value);
  }
  if (problems.length > 0) throw new SettingsError(`${source}: ${problems.join('; ')}`);
  const value = (name: string): unknown => (given.has(name) ? given.get(name) : schema[`turnstone.${name}`]?.default);
  const settings: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(FIELDS)) settings[field] = value(name);
  // Only when written: the manifest's default is a hint, and the percentage applies otherwise (contracts.md).
  settings.autoCompactInputTokens = given.get('autoCompactInputTokens');
  settings.model = String(settings.model ?? '').trim() || String(schema['turnstone.model']?.default ?? '');
  return settings as unknown as TurnstoneSettings;
}

/** The `turnstone.mcpServers` value of a settings object, if it has one. */
export function mcpServersOf(json: unknown): unknown {
  return typeof json === 'object' && json !== null ? (json as Record<string, unknown>)['turnstone.mcpServers'] : undefined;
}
