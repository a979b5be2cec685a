// Argument parsing for the headless CLI (contracts.md). Node's util.parseArgs
// does the tokenising; this module turns its result into a validated config or
// a one-line usage error (exit 2).
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { PROVIDER_NAMES, type ProviderName } from '../agent/settings';
import { PERMISSION_MODES, type PermissionMode } from '../runtime/policy/permissions';
import { SANDBOX_MODES, type SandboxMode } from '../tools/shell/sandbox-probe';
import { worktreeNameProblem } from '../agent/worktrees';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface CliConfig {
  prompt: string;
  cwd: string;
  model: string | undefined;
  /** `--provider`; absent: TURNSTONE_PROVIDER, else the settings file's, else anthropic. */
  provider: ProviderName | undefined;
  /** Absent: the settings file's, else ask. */
  permissionMode: PermissionMode | undefined;
  allow: string[];
  deny: string[];
  maxIterations: number | undefined;
  outputFormat: OutputFormat;
  session: string | undefined;
  /** Absent: the settings file's, else auto. */
  sandbox: SandboxMode | undefined;
  /** `--settings`: a JSON object of `turnstone.*` settings, resolved against the directory the CLI was started in. */
  settings: string | undefined;
  /** --mcp-config files, resolved against the directory the CLI was started in. */
  mcpConfigs: string[];
  /** `--max-cost-usd`: per-turn spend cap in US dollars. */
  maxCostUsd: number | undefined;
  /** `--model-prices`: a JSON file of prices (turnstone.modelPrices' shape), resolved against the directory the CLI was started in. */
  modelPrices: string | undefined;
  /** `--image` files, resolved against the directory the CLI was started in; read and checked by the CLI before the turn. */
  images: string[];
  /** `--worktree [name]`: run in a new git worktree on branch `turnstone/<name>` (name undefined: a generated one). */
  worktree: { name: string | undefined; carry: boolean } | undefined;
  /** `--plugin-dir` folders (Claude Code's plugin layout), resolved against the directory the CLI was started in. */
  pluginDirs: string[];
}

export type ParsedArgs = { kind: 'help' } | { kind: 'version' } | { kind: 'run'; config: CliConfig };

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const HELP = `Usage: turnstone -p <prompt> [options]

Runs one agent turn without an editor, with the same core as the VS Code extension.

Options:
  -p, --print <prompt>          run one turn non-interactively and exit
  --cwd <dir>                   workspace root (default: current directory)
  --model <id>                  model id (default: the extension's default model)
  --provider <name>             ${PROVIDER_NAMES.join(' | ')} (default: TURNSTONE_PROVIDER,
                                else --settings' turnstone.provider, else anthropic)
  --permission-mode <mode>      plan | ask | acceptEdits | bypassPermissions (default ask, or --settings';
                                without a person to ask, "ask" denies with a reason)
  --allow <rule>                allow tool uses matching a rule; repeatable
  --deny <rule>                 deny tool uses matching a rule; repeatable
  --max-iterations <n>          most model requests in the turn (default 50)
  --output-format <fmt>         text | json | stream-json (default text)
  --session <file.jsonl>        append to / resume this session file; a checkpoint of the workspace is
                                taken when the turn starts and ends (in checkpoints/ beside the file)
  --sandbox <mode>              auto | off (default auto): run bash commands in an OS sandbox
                                (bubblewrap) that writes only in the workspace and the temp folder
  --mcp-config <file>           add MCP servers from a JSON file ({"mcpServers": …} or
                                {"servers": …}); repeatable. The workspace's .vscode/mcp.json
                                and .mcp.json are read too. Tools are named mcp__<server>__<tool>
  --max-cost-usd <n>            stop the turn before a request could take its cost past $n (each
                                request counts its whole reply limit at the model's output price)
  --model-prices <file>         prices for models the built-in table lacks (or overrides), as JSON:
                                {"gpt-4o": {"input": 2.5, "output": 10, "cacheRead": 1.25}} in US
                                dollars per million tokens
  --settings <file>             a JSON object of turnstone.* settings, as in VS Code's settings.json:
                                {"turnstone.hooks": {…}, "turnstone.permissions.allow": […],
                                "turnstone.sandbox.network": "deny", "turnstone.checkpoints.maxFileSizeMB": 5}.
                                Flags win over the file; its hooks run (it is your own file)
  --worktree [name]             run in a new git worktree of --cwd's repository, made from its HEAD on
                                a new branch turnstone/<name> (name default: the date and a random
                                suffix), in a folder outside it (turnstone.worktrees.dir, default the
                                user's data folder); uncommitted changes stay behind unless
                                --carry-changes
  --carry-changes               with --worktree: bring the uncommitted changes (staged or not) and
                                untracked files git does not ignore into the worktree, unstaged;
                                your working tree, index and stashes stay as they are
  --plugin-dir <dir>            load a plugin (a folder with .claude-plugin/plugin.json) for this run:
                                its commands (/<plugin>:<command>), agents, skills, hooks and MCP
                                servers join the workspace's; repeatable
  --image <file>                attach a PNG, JPEG, GIF or WebP image (at most 5 MB) to the
                                prompt; repeatable (up to 20), e.g. --image screenshot.png
  -h, --help                    show this help
  -v, --version                 print the version

Rules: 'read_file', 'bash(npm test)', 'bash(git status:*)', 'edit_file(src/*)',
'mcp__github__create_issue', 'mcp__github__*' or 'mcp__github' (every tool of a server).
A compound command is allowed only if every part matches an allow rule.

Environment:
  ANTHROPIC_API_KEY             API key (required for the Anthropic provider)
  ANTHROPIC_BASE_URL            API base URL (proxies, gateways)
  TURNSTONE_PROVIDER            the provider when --provider is not given (default anthropic)
  OPENAI_API_KEY                API key (required for the openai provider; optional for openai-compatible)
  OPENAI_BASE_URL               API base URL: openai's default is https://api.openai.com/v1;
                                required for openai-compatible (e.g. http://127.0.0.1:11434/v1)
  AWS_REGION, AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY   for bedrock (AWS credential chain)
  CLOUD_ML_REGION, ANTHROPIC_VERTEX_PROJECT_ID, GOOGLE_APPLICATION_CREDENTIALS   for vertex (Google ADC)
  TURNSTONE_AUTO_COMPACT_INPUT_TOKENS   compaction threshold in tokens (default: 85 % of the model's window)

Exit status: 0 turn completed, 1 turn failed (also when --max-cost-usd stopped it), 2 bad usage, 130 interrupted.

Project instructions: AGENTS.md, CLAUDE.md, .github/copilot-instructions.md,
.clinerules, .roorules, .roo/rules/ in --cwd and ~/.turnstone/AGENTS.md go into the
system prompt. Custom commands: -p "/name args" sends .turnstone/commands/name.md
(or .claude/commands/name.md) with $ARGUMENTS replaced by args.

Examples:
  turnstone -p "explain src/index.ts"
  turnstone -p "fix the failing test" --permission-mode acceptEdits --allow 'bash(npm test)'
  turnstone -p "summarise the README" --output-format json
  OPENAI_API_KEY=sk-… turnstone -p "review the diff" --provider openai --model gpt-5
  turnstone -p "continue" --session .turnstone/session.jsonl
`;

/**
 * `--worktree` takes an optional name, which parseArgs cannot express: a `--worktree` that is last or
 * followed by another option becomes `--worktree=` (an empty name: a generated one).
 */
function withOptionalWorktreeName(argv: string[]): string[] {
  return argv.map((arg, i) => (arg === '--worktree' && (i + 1 >= argv.length || argv[i + 1]!.startsWith('-')) ? '--worktree=' : arg));
}

export function parseCliArgs(argv: string[], cwd = process.cwd()): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: withOptionalWorktreeName(argv),
      allowPositionals: false,
      strict: true,
      options: {
        print: { type: 'string', short: 'p' },
        cwd: { type: 'string' },
        model: { type: 'string' },
        provider: { type: 'string' },
        'permission-mode': { type: 'string' },
        allow: { type: 'string', multiple: true },
        deny: { type: 'string', multiple: true },
        'max-iterations': { type: 'string' },
        'output-format': { type: 'string' },
        session: { type: 'string' },
        sandbox: { type: 'string' },
        'mcp-config': { type: 'string', multiple: true },
        'max-cost-usd': { type: 'string' },
        'model-prices': { type: 'string' },
        settings: { type: 'string' },
        image: { type: 'string', multiple: true },
        worktree: { type: 'string' },
        'carry-changes': { type: 'boolean' },
        'plugin-dir': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
      },
    });
  } catch (error) {
    // parseArgs' messages are long and mention internals; keep the first sentence.
    const message = error instanceof Error ? error.message.split('. ')[0]!.replace(/\.$/, '') : String(error);
    throw new UsageError(`${message} (see --help)`);
  }
  const v = parsed.values;
  if (v.help) return { kind: 'help' };
  if (v.version) return { kind: 'version' };

  const prompt = v.print;
  if (prompt === undefined || prompt.trim() === '') throw new UsageError('missing prompt: pass it with -p "<prompt>" (see --help)');

  const mode = v['permission-mode'] as PermissionMode | undefined;
  if (mode !== undefined && !PERMISSION_MODES.includes(mode)) {
    throw new UsageError(`bad --permission-mode '${v['permission-mode']}': use one of ${PERMISSION_MODES.join(', ')}`);
  }
  const provider = v.provider as ProviderName | undefined;
  if (provider !== undefined && !PROVIDER_NAMES.includes(provider)) {
    throw new UsageError(`bad --provider '${v.provider}': use one of ${PROVIDER_NAMES.join(', ')}`);
  }
  const format = (v['output-format'] ?? 'text') as OutputFormat;
  if (!OUTPUT_FORMATS.includes(format)) {
    throw new UsageError(`bad --output-format '${v['output-format']}': use one of ${OUTPUT_FORMATS.join(', ')}`);
  }
  const sandbox = v.sandbox as SandboxMode | undefined;
  if (sandbox !== undefined && !SANDBOX_MODES.includes(sandbox)) {
    throw new UsageError(`bad --sandbox '${v.sandbox}': use one of ${SANDBOX_MODES.join(', ')}`);
  }
  let maxIterations: number | undefined;
  if (v['max-iterations'] !== undefined) {
    maxIterations = Number(v['max-iterations']);
    if (!Number.isInteger(maxIterations) || maxIterations < 1) {
      throw new UsageError(`bad --max-iterations '${v['max-iterations']}': use a whole number of at least 1`);
    }
  }
  let maxCostUsd: number | undefined;
  if (v['max-cost-usd'] !== undefined) {
    maxCostUsd = Number(v['max-cost-usd']);
    if (v['max-cost-usd'].trim() === '' || !Number.isFinite(maxCostUsd) || maxCostUsd <= 0) {
      throw new UsageError(`bad --max-cost-usd '${v['max-cost-usd']}': use an amount in US dollars greater than 0, e.g. 0.50`);
    }
  }
  let worktree: CliConfig['worktree'];
  if (v.worktree !== undefined) {
    const name = v.worktree.trim();
    const problem = name ? worktreeNameProblem(name) : undefined;
    if (problem) throw new UsageError(`bad --worktree: ${problem}`);
    worktree = { name: name || undefined, carry: v['carry-changes'] === true };
  } else if (v['carry-changes']) throw new UsageError('--carry-changes goes with --worktree: it brings your uncommitted changes into the new worktree');
  const dir = path.resolve(cwd, v.cwd ?? '.');
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`--cwd '${v.cwd ?? dir}' is not a readable folder`);
  const pluginDirs = (v['plugin-dir'] ?? []).map((d) => path.resolve(cwd, d));
  for (const [i, d] of pluginDirs.entries()) {
    if (!statSync(d, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--plugin-dir '${v['plugin-dir']![i]}' is not a folder`);
  }

  return {
    kind: 'run',
    config: {
      prompt,
      cwd: dir,
      model: v.model,
      provider,
      permissionMode: mode,
      allow: v.allow ?? [],
      deny: v.deny ?? [],
      maxIterations,
      outputFormat: format,
      session: v.session === undefined ? undefined : path.resolve(cwd, v.session),
      sandbox,
      mcpConfigs: (v['mcp-config'] ?? []).map((f) => path.resolve(cwd, f)),
      maxCostUsd,
      modelPrices: v['model-prices'] === undefined ? undefined : path.resolve(cwd, v['model-prices']),
      settings: v.settings === undefined ? undefined : path.resolve(cwd, v.settings),
      images: (v.image ?? []).map((f) => path.resolve(cwd, f)),
      worktree,
      pluginDirs,
    },
  };
}
