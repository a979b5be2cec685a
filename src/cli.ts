// Headless CLI (contracts.md "Headless CLI"): one turn of the same runtime,
// providers and tools as the extension, with Node adapters and no prompter.
import { discoverCustomAgents } from './agent/custom-agents';
import { mkdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import manifest from '../package.json';
import { HELP, parseCliArgs, UsageError, type CliConfig } from './cli/args';
import { createRenderer, toCliResult, type Sink } from './cli/output';
import { mcpServersOf, parseSettingsObject, SettingsError, type SettingSchema, type TurnstoneSettings } from './agent/settings';
import { AgentSession } from './agent/agent-session';
import { TurnCheckpoints } from './agent/turn-checkpoints';
import { createTurnContext } from './agent/turn-context';
import { openCheckpointStore } from './tools/checkpoints';
import { ConversationRuntime } from './runtime/loop/conversation';
import { errorMessage } from './runtime/errors';
import { ImageError, imageFromBytes, MAX_IMAGE_BYTES, MAX_IMAGES_PER_MESSAGE } from './runtime/context/images';
import { type ImageBlock } from './runtime/types';
import { parseModelPrices } from './runtime/spend/model-prices';
import { type PriceTable } from './runtime/spend/usage';
import { createModelClient } from './runtime/providers';
import { cliModelOptions } from './cli/providers';
import { cliLiveModel } from './cli/model-lists';
import { JsonlSessionStore, loadSession, type LoadedSession } from './runtime/session/session';
import { loadProjectInstructions } from './runtime/context/instructions';
import { memoryDirFor } from './tools/memory/memory-dir';
import { memoryListing } from './tools/memory/memory-tool';
import { PathScopedInstructions } from './runtime/context/path-scoped';
import { sensitiveFileMatcher } from './runtime/policy/sensitive-files';
import { nodeInstructionReader } from './runtime/context/instructions-node';
import { loadCustomSlashCommands, resolveSlash } from './runtime/context/slash-commands';
import { buildSystemPrompt } from './runtime/context/system-prompt';
import { discoverSkills, skillCutNote, skillListing, skillPromptSection, type SkillSet } from './runtime/context/skills';
import { cleanUpInterruptedWrites } from './tools/files/interrupted-writes';
import { NodeShell, NodeWorkspace } from './tools/node-adapter';
import { createToolExecutor, DEFAULT_LIMITS, webFetchUserAgent } from './tools/registry';
import { BackgroundCommands } from './tools/shell/background';
import { userCacheDir } from './tools/os/private-dir';
import { CommandSandbox } from './tools/shell/sandbox';
import { needsRelaunch, receiveCredentials, relaunchWithoutCredentials } from './cli/relaunch';
import { findOnPath } from './cli/which';
import { createCliMcp, killServers, McpConfigError } from './cli/mcp';
import { createWorktree, removeWorktree, WorktreeError, type CreatedWorktree } from './agent/worktrees';
import { loadPlugins, mergeHooks, pluginParts } from './agent/plugins/plugin-reader';
import { pluginServerLayer } from './agent/plugins/plugin-mcp';
import { type Skill } from './runtime/context/skills';

const sink: Sink = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stdout.isTTY === true,
  columns: process.stdout.columns,
};

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isFIFO()) return 'a pipe';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** Checked up front: a device or a folder given as --session would otherwise fail obscurely (or read /dev/zero forever). */
function sessionPathProblem(file: string): string | undefined {
  let st: Stats | undefined;
  try {
    st = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      const parent = path.dirname(path.resolve(file));
      const p = statSync(parent, { throwIfNoEntry: false });
      return p && !p.isDirectory() ? `--session ${file}: its folder ${parent} is ${kindOf(p)}; give a path to a .jsonl file in a folder` : undefined;
    }
    if (code === 'ENOTDIR') return `--session ${file}: a part of the path is a file, not a folder; give a path to a .jsonl file in a folder`;
    return `--session ${file}: cannot be used (${code ?? String(error)})`;
  }
  return st.isFile() ? undefined : `--session ${file} is ${kindOf(st)}; give a path to a .jsonl session file`;
}

async function openSession(file: string, cwd: string, model: string): Promise<{ store: JsonlSessionStore; loaded: LoadedSession | undefined }> {
  if (statSync(file, { throwIfNoEntry: false })) {
    const loaded = await loadSession(file);
    for (const warning of loaded.warnings) sink.stderr(`warning: ${warning}\n`);
    const removed = await cleanUpInterruptedWrites(loaded.messages, cwd);
    if (removed.length > 0) sink.stderr(`turnstone: removed ${removed.length} temp file(s) left by a write the last run was killed in: ${removed.map((f) => path.relative(cwd, f)).join(', ')}\n`);
    return { store: JsonlSessionStore.open(file), loaded };
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const store = JsonlSessionStore.open(file);
  await store.append({ type: 'meta', version: 1, id: path.basename(file, '.jsonl'), createdAt: new Date().toISOString(), cwd, model });
  return { store, loaded: undefined };
}

/** `--image` files as image blocks, or the one line that says why a file cannot be attached (exit 2). */
function readImages(files: string[]): { images: ImageBlock[] } | { error: string } {
  if (files.length > MAX_IMAGES_PER_MESSAGE) return { error: `${files.length} --image files: at most ${MAX_IMAGES_PER_MESSAGE} can be attached to one prompt` };
  const images: ImageBlock[] = [];
  for (const file of files) {
    let bytes: Buffer;
    try {
      const st = statSync(file);
      if (!st.isFile()) return { error: `--image ${file} is not a file` };
      if (st.size > MAX_IMAGE_BYTES) return { error: `--image ${file} is ${(st.size / 1048576).toFixed(1)} MB; images larger than ${MAX_IMAGE_BYTES / 1048576} MB cannot be sent (downscale it first)` };
      bytes = readFileSync(file);
    } catch (error) {
      return { error: `--image ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? errorMessage(error)})` };
    }
    try {
      images.push(imageFromBytes(bytes, `--image ${file}`));
    } catch (error) {
      if (error instanceof ImageError) return { error: error.message };
      throw error;
    }
  }
  return { images };
}

/** `--model-prices <file>`: the prices, or the one line that says what is wrong with the file (exit 2). */
function readPrices(file: string | undefined): { prices: PriceTable } | { error: string } {
  if (file === undefined) return { prices: {} };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { error: `--model-prices ${file} ${code ? `cannot be read (${code})` : `is not valid JSON (${errorMessage(error)})`}` };
  }
  const parsed = parseModelPrices(json, `--model-prices ${file}`);
  if (parsed.problems.length > 0) return { error: parsed.problems.join('; ') };
  return { prices: parsed.prices };
}

/** `--settings <file>` (flags win over it), or the manifest's defaults; or the one line that says what is wrong (exit 2). */
function readSettings(config: CliConfig): { settings: TurnstoneSettings; mcpServers: unknown } | { error: string } {
  const schema = manifest.contributes.configuration.properties as Record<string, SettingSchema>;
  let json: unknown = {};
  if (config.settings !== undefined) {
    try {
      json = JSON.parse(readFileSync(config.settings, 'utf8'));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return { error: `--settings ${config.settings} ${code ? `cannot be read (${code})` : `is not valid JSON (${errorMessage(error)})`}` };
    }
  }
  let s: TurnstoneSettings;
  try {
    s = parseSettingsObject(json, schema, `--settings ${config.settings ?? ''}`.trim());
  } catch (error) {
    if (error instanceof SettingsError) return { error: error.message };
    throw error;
  }
  const settings: TurnstoneSettings = {
    ...s,
    model: config.model ?? s.model,
    permissionMode: config.permissionMode ?? s.permissionMode,
    allow: [...s.allow, ...config.allow],
    deny: [...s.deny, ...config.deny],
    maxIterations: config.maxIterations ?? s.maxIterations,
    maxCostPerTurnUsd: config.maxCostUsd ?? s.maxCostPerTurnUsd,
    sandbox: config.sandbox ?? s.sandbox,
  };
  return { settings, mcpServers: mcpServersOf(json) };
}

/** The plugins' skills beside the others, by name (a name found first stays). */
function withPluginSkills(set: SkillSet, skills: readonly Skill[]): SkillSet {
  if (skills.length === 0) return set;
  const extra = skills.filter((k) => !set.skills.some((s) => s.name === k.name));
  return { skills: [...set.skills, ...extra].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), problems: set.problems };
}

/** `-p /skills`: the list on stdout (JSON with --output-format json or stream-json). */
function printSkills(set: SkillSet, format: CliConfig['outputFormat']): void {
  if (format === 'text') {
    sink.stdout(`${skillListing(set)}\n`);
    return;
  }
  const skills = set.skills.map((k) => ({ name: k.name, description: k.description, scope: k.scope, source: k.label, path: k.dir }));
  sink.stdout(`${JSON.stringify({ type: 'skills', skills, problems: set.problems })}\n`);
}

async function run(config: CliConfig, env: NodeJS.ProcessEnv): Promise<number> {
  const attached = readImages(config.images);
  if ('error' in attached) {
    sink.stderr(`turnstone: ${attached.error}\n`);
    return 2;
  }
  const read = readSettings(config);
  if ('error' in read) {
    sink.stderr(`turnstone: ${read.error}\n`);
    return 2;
  }
  const s = read.settings;
  const priced = readPrices(config.modelPrices);
  if ('error' in priced) {
    sink.stderr(`turnstone: ${priced.error}\n`);
    return 2;
  }
  // The folder given is the user's choice of it, so its skills count as trusted (as its MCP servers do).
  const sensitive = sensitiveFileMatcher(s.sensitiveFiles);
  // --plugin-dir: plugins the user named for this run, trusted as the folder is; their parts join the workspace's.
  const plugins = await loadPlugins(config.pluginDirs, { sensitive });
  for (const problem of plugins.problems) sink.stderr(`turnstone: ${problem}\n`);
  const fromPlugins = pluginParts(plugins);
  // `/skills` needs no model: it answers at once (and needs no worktree: it lists the folder given).
  if (/^\/skills(\s|$)/.test(config.prompt.trim())) {
    if (config.worktree) sink.stderr('turnstone: --worktree: not used by /skills, which lists the skills of --cwd\n');
    printSkills(withPluginSkills(await discoverSkills(nodeInstructionReader, { workspaceFolders: [config.cwd], home: os.homedir(), trusted: true, sensitive }), fromPlugins.skills), config.outputFormat);
    return 0;
  }
  // `/memory` needs no model either: this folder's memory files, listed.
  if (/^\/memory(\s|$)/.test(config.prompt.trim())) {
    sink.stdout(await memoryListing(memoryDirFor(s, config.cwd)));
    return 0;
  }
  const options = cliModelOptions(config.provider, env, s);
  if ('error' in options) {
    sink.stderr(`turnstone: ${options.error}\n`);
    return 1;
  }
  // Built-in commands are the panel's whatever the workspace holds: refused before a worktree is made.
  const builtin = config.prompt.trimStart().startsWith('/') ? resolveSlash(config.prompt, []) : undefined;
  if (builtin?.kind === 'builtin') {
    sink.stderr(`turnstone: /${builtin.name} is a command of the editor's chat panel; it does nothing in -p (start a new session by leaving out --session; compact with the editor)\n`);
    return 2;
  }
  const sessionProblem = config.session ? sessionPathProblem(config.session) : undefined;
  if (sessionProblem) {
    sink.stderr(`turnstone: ${sessionProblem}\n`);
    return 2;
  }
  // `--worktree`: made last of the checks that need nothing of the workspace, then everything below (commands,
  // skills, instructions, tools, sandbox, checkpoints, MCP files) is the worktree's.
  let worktree: CreatedWorktree | undefined;
  if (config.worktree) {
    try {
      worktree = await createWorktree({ cwd: config.cwd, name: config.worktree.name, dir: s.worktreesDir, carryUncommitted: config.worktree.carry });
    } catch (error) {
      if (!(error instanceof WorktreeError)) throw error;
      sink.stderr(`turnstone: --worktree: ${error.message}\n`);
      return 2;
    }
    config = { ...config, cwd: worktree.cwd };
    const carried =
      worktree.carried > 0
        ? `; ${worktree.carried} uncommitted change${worktree.carried === 1 ? ' was' : 's were'} carried over`
        : worktree.uncommitted > 0
          ? `; ${worktree.uncommitted} uncommitted change${worktree.uncommitted === 1 ? ' was' : 's were'} not carried over (--carry-changes brings them)`
          : '';
    if (config.outputFormat === 'text') sink.stderr(`turnstone: worktree ${worktree.path} (branch ${worktree.branch}, from ${worktree.base.ref?.replace(/^refs\/heads\//, '') ?? worktree.base.commit.slice(0, 7)})${carried}\n`);
    else if (carried) sink.stderr(`turnstone: worktree ${worktree.path}${carried}\n`);
  }
  const skills = withPluginSkills(await discoverSkills(nodeInstructionReader, { workspaceFolders: [config.cwd], home: os.homedir(), trusted: true, sensitive }), fromPlugins.skills);
  // contracts.md "Slash commands": `-p "/review src/a.ts"` sends .turnstone/commands/review.md with $ARGUMENTS filled in.
  let prompt = config.prompt;
  if (prompt.trimStart().startsWith('/')) {
    const commands = await loadCustomSlashCommands(nodeInstructionReader, config.cwd, sensitive);
    for (const note of commands.notes) sink.stderr(`turnstone: ${note}\n`);
    const slash = resolveSlash(prompt, [...commands.custom, ...fromPlugins.commands]);
    if (slash.kind === 'custom') prompt = slash.text;
  }
  const session = config.session ? await openSession(config.session, config.cwd, s.model) : undefined;
  const sandbox = new CommandSandbox(() => ({ mode: s.sandbox, network: s.sandboxNetwork, roots: [config.cwd], hideSecrets: s.sandboxHideSecrets, sensitive }), {
    onUnavailable: (reason) => sink.stderr(`turnstone: no command sandbox: ${reason}; commands run with permission rules only\n`),
  });
  // One per run: everything the model starts in the background stops when the CLI exits or is interrupted.
  const background = new BackgroundCommands({ maxRunning: () => s.bashMaxBackground, maxUnreadChars: DEFAULT_LIMITS.maxOutputChars, maxLogBytes: () => s.bashOutputCapMB * 1024 * 1024 });
  if (session?.loaded) background.continueAfter(session.loaded.messages);
  const shell = new NodeShell({ sandbox, envPassthrough: () => s.bashEnvPassthrough });
  // Servers start with the turn's first step, and stop in the finally below whatever happens.
  let mcp;
  try {
    mcp = await createCliMcp(config.cwd, config.mcpConfigs, manifest.version, (m) => sink.stderr(`turnstone: ${m}\n`), { servers: read.mcpServers, source: `--settings ${config.settings ?? ''}`, callTimeoutMs: s.mcpCallTimeoutMs, startTimeoutMs: s.mcpStartTimeoutMs }, plugins.plugins.length > 0 ? (ctx) => pluginServerLayer(plugins, ctx) : undefined);
  } catch (error) {
    if (!(error instanceof McpConfigError)) throw error;
    sink.stderr(`turnstone: ${error.message}\n`);
    // Nothing ran in the worktree this run made: it goes again, so a usage error leaves nothing behind.
    if (worktree) await removeWorktree(worktree.path, { force: true });
    return 2;
  }
  // A saved session gets checkpoints, as in the editor: beside its file, under its name.
  const checkpoints = session
    ? new TurnCheckpoints({
        dir: (id) => path.join(path.dirname(session.store.path), 'checkpoints', id),
        root: () => config.cwd,
        maxFileBytes: () => s.checkpointsMaxFileSizeMB * 1024 * 1024,
        openStore: openCheckpointStore,
        log: { info: () => undefined, warn: (m) => sink.stderr(`turnstone: ${m}\n`) },
      })
    : undefined;
  // Same files and caps as the editor (contracts.md "Project instructions").
  const instructions = await loadProjectInstructions(nodeInstructionReader, { workspaceRoot: config.cwd, homeDir: os.homedir(), sensitive });
  for (const note of instructions.notes) sink.stderr(`turnstone: ${note}\n`);
  // Rules for some paths come with the first read or edit of a matching file (a resumed session's history counts).
  const pathScoped = new PathScopedInstructions();
  pathScoped.update(instructions.pathScoped, config.cwd);
  pathScoped.sync(session?.loaded?.messages ?? []);
  const cutNote = skillCutNote(skillPromptSection(skills.skills).cut);
  // The folder given is trusted as its skills are: its agent files are the user's.
  const customAgents = await discoverCustomAgents({ workspaceFolders: [config.cwd], home: os.homedir(), trusted: true, sensitive });
  for (const problem of customAgents.problems) sink.stderr(`turnstone: agents: ${problem}\n`);
  for (const note of [...skills.problems, ...(cutNote ? [cutNote] : [])]) sink.stderr(`turnstone: skills: ${note}\n`);
  const context = createTurnContext({
    // Hooks of --settings first, then the plugins' (each with its own folder written in).
    settings: { ...s, hooks: mergeHooks(s.hooks, fromPlugins.hooks) },
    permissionMode: s.permissionMode,
    model: createModelClient(options),
    builtInTools: (wrapWorkspace) =>
      createToolExecutor(
        { workspace: wrapWorkspace(new NodeWorkspace(config.cwd)), shell },
        // Never a relative PATH entry or one inside the workspace: a repository could ship its own `rg`.
        // Full output of long commands goes to the user's cache folder, which no sandboxed command can write.
        {
          ripgrepPath: findOnPath('rg', process.env.PATH, [config.cwd]),
          outputDir: path.join(userCacheDir(), 'output'),
          limits: { bashDefaultTimeoutMs: s.bashTimeoutMs, maxKeptOutputBytes: s.bashOutputCapMB * 1024 * 1024 },
          sensitiveFiles: s.sensitiveFiles,
          background,
          webFetch: { allowPrivateNetwork: s.webFetchAllowPrivateNetwork, userAgent: webFetchUserAgent(manifest.version) },
          // Screenshots beside a saved session's file, under its name (as checkpoints); the missing-browser line only
          // when a path was set (a plain run without a browser says nothing).
          browser: {
            executablePath: s.browserExecutablePath || undefined,
            headless: s.browserHeadless,
            ...(session ? { screenshotDir: path.join(path.dirname(session.store.path), 'screenshots', path.basename(session.store.path, '.jsonl')) } : {}),
            ...(s.browserExecutablePath ? { unavailable: (note: string) => sink.stderr(`turnstone: ${note}\n`) } : {}),
          },
          skills: () => skills.skills,
        },
      ),
    background,
    mcp,
    checkpoints,
    systemPrompt: buildSystemPrompt({
      workspaceRoot: config.cwd,
      platform: process.platform,
      host: 'the Turnstone CLI (non-interactive: nobody can answer permission prompts)',
      date: new Date().toISOString().slice(0, 10),
      ...(instructions.text ? { extra: instructions.text } : {}),
      skills: skills.skills,
    }),
    // Hooks come only from --settings and --plugin-dir, which the user named: running them is their choice.
    hooksCwd: config.cwd,
    customAgents: [...customAgents.agents, ...fromPlugins.agents.filter((a) => !customAgents.agents.some((c) => c.name === a.name))],
    pathScoped,
    prices: priced.prices,
    liveModel: await cliLiveModel(options, s, priced.prices),
    warn: (m) => sink.stderr(`turnstone: ${m}\n`),
  });
  const sessionId = session ? path.basename(session.store.path, '.jsonl') : undefined;
  const agent = new AgentSession({
    turnContext: () => Promise.resolve(context),
    openRuntime: (turn) =>
      new ConversationRuntime(
        { model: turn.model, tools: turn.tools, ...(turn.hooks ? { hooks: turn.hooks } : {}), ...(session ? { session: session.store } : {}) },
        turn.config,
        session?.loaded
          ? { messages: session.loaded.messages, plan: session.loaded.plan, ...(session.loaded.usage ? { usage: session.loaded.usage } : {}), ...(session.loaded.cost ? { cost: session.loaded.cost } : {}) }
          : {},
      ),
    ...(checkpoints && sessionId
      ? { checkpoints: { turnStarted: (index, words) => checkpoints.turnStarted(sessionId, () => new NodeWorkspace(config.cwd), index, words), turnEnded: () => checkpoints.turnEnded() } }
      : {}),
    background: () => background,
  });

  const renderer = createRenderer(config.outputFormat, sink);
  agent.subscribe((event) => renderer.onEvent(event));

  // Ctrl+C, a closed terminal (SIGHUP) and a CI cancel or `kill` (SIGTERM) all stop the turn the same way: the
  // session is saved, background commands and MCP servers stop. Left to the default action, SIGTERM and SIGHUP
  // ended the process at once and its background commands ran on, re-parented to pid 1.
  let stoppedBy: NodeJS.Signals | undefined;
  const onStopSignal = (signal: NodeJS.Signals) => {
    // A second signal means "now": the session is append-only, so what is on disk stays loadable; the exit
    // handlers still stop the background commands.
    if (stoppedBy) {
      killServers(mcp);
      process.exit(exitCodeOf(signal));
    }
    stoppedBy = signal;
    // After SIGHUP the terminal is gone: a write fails later, as an 'error' event, which must not end the stop.
    if (signal === 'SIGHUP') for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
    try {
      sink.stderr(signal === 'SIGINT' ? '\nturnstone: interrupting (Ctrl+C again to quit at once)…\n' : `\nturnstone: ${signal}: stopping the turn…\n`);
    } catch {
      // The terminal that would show it may be gone (SIGHUP).
    }
    // The CLI ends with the turn: nothing it started may run on.
    agent.interrupt({ kill: true });
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onStopSignal);
  try {
    const summary = await agent.submit(prompt, { images: attached.images, checkpoint: { words: config.prompt } });
    await session?.store.flush();
    renderer.finish(toCliResult(summary, session?.store.path, { cwd: config.cwd, ...(worktree ? { worktree } : {}) }));
    if (summary.outcome === 'aborted') return exitCodeOf(stoppedBy ?? 'SIGINT');
    return summary.outcome === 'completed' ? 0 : 1;
  } finally {
    await agent.close();
    await background.dispose();
    await mcp?.dispose();
    for (const signal of STOP_SIGNALS) process.off(signal, onStopSignal);
  }
}

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** 128 + the signal's number, as a shell reports a process a signal ended (130 for Ctrl+C). */
function exitCodeOf(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 2);
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCliArgs(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      sink.stderr(`turnstone: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  if (parsed.kind === 'help') {
    sink.stdout(HELP);
    return 0;
  }
  if (parsed.kind === 'version') {
    sink.stdout(`${manifest.version}\n`);
    return 0;
  }
  // The process that runs commands must never have started with the key in its environment.
  if (needsRelaunch()) return relaunchWithoutCredentials();
  return run(parsed.config, { ...process.env, ...(await receiveCredentials()) });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    sink.stderr(`turnstone: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
