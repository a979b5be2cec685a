// createToolExecutor: the ToolExecutor port the turn loop calls, built from
// the built-in tools and a pair of Workspace/Shell adapters.
import * as os from 'node:os';
import * as path from 'node:path';
import {
  type FileChange,
  type ToolContext,
  type ToolDefinition,
  type ToolExecutor,
  ToolInputError,
  type ToolOutput,
  type ToolUseAssessment,
} from '../runtime/types';
import { type BackgroundCommands } from './shell/background';
import { bashOutputTool, killShellTool } from './shell/background-tools';
import { bashTool } from './shell/bash';
import { editFileTool } from './files/edit-file';
import { ToolError } from './errors';
import { ReadRecords } from './files/file-state';
import { globSearchTool } from './search/glob-search';
import { grepSearchTool } from './search/grep-search';
import { PathResolver } from './files/paths';
import { type CodeNavigation, type EditDiagnostics } from './language-ports';
import { lspTool } from './lsp/lsp';
import { type Shell, type Workspace, WorkspaceError } from './ports';
import { readFileTool } from './files/read-file';
import { userCacheDir } from './os/private-dir';
import { sensitiveFileMatcher } from '../runtime/policy/sensitive-files';
import { type Tool, type ToolEnv, type ToolLimits } from './tool';
import { todoWriteTool } from './todo/todo-write';
import { writeFileTool } from './files/write-file';
import { webFetchTool } from './web-fetch';
import { type WebFetchConfig } from './web-fetch/http-get';
import { browserTool } from './browser';
import { findBrowser, NO_BROWSER_NOTE } from './browser/find-browser';
import { type BrowserConfig } from './browser/page-session';
import { type Skill } from '../runtime/context/skills';
import { skillTool } from './skill/skill';
import { DEFAULT_KEPT_OUTPUT_BYTES } from './shell/kept-output';

export interface ToolAdapters {
  workspace: Workspace;
  /** Leave out where commands cannot run (virtual workspaces): bash is then not offered. */
  shell?: Shell;
  /** Editor hosts only: problems after edits, and the lsp tool (offered only with navigation). */
  diagnostics?: EditDiagnostics;
  navigation?: CodeNavigation;
}

export interface ToolExecutorOptions {
  /** ripgrep binary for grep_search; without it (or if it fails to start) a JS engine gives the same output. */
  ripgrepPath?: string;
  /** Where bash saves full output that was truncated (default: the user's cache folder, see userCacheDir). */
  outputDir?: string;
  /** What `~` expands to (default: os.homedir()). */
  homeDir?: string;
  limits?: Partial<ToolLimits>;
  /** Globs added to the sensitive-files list (setting turnstone.permissions.sensitiveFiles). */
  sensitiveFiles?: readonly string[];
  /** The session's background commands (bash `run_in_background`, bash_output, kill_shell); without it bash runs in the foreground only. */
  background?: BackgroundCommands;
  /** web_fetch: allowPrivateNetwork (the setting), the User-Agent (with the version), limits; tests add a resolver. */
  webFetch?: Partial<WebFetchConfig>;
  /** The skills found for the turn (read when used, so a later discovery is seen); the skill tool is offered when there are any. */
  skills?: () => readonly Skill[];
  /**
   * browser: turnstone.browser.executablePath and .headless (the CLI adds where screenshots are saved). The tool is
   * offered when a browser is found; `unavailable` hears the one line saying what to install (once per process).
   * Absent: the tool is not offered.
   */
  browser?: Partial<BrowserConfig> & { unavailable?: (note: string) => void };
}

export const DEFAULT_BROWSER: Omit<BrowserConfig, 'executablePath'> = { headless: true, loadTimeoutMs: 30_000, actionTimeoutMs: 5_000 };

let browserNoteSaid = false;

/** The browser tool's configuration, or undefined (not offered) when no browser is found. */
function browserConfig(options: ToolExecutorOptions['browser']): BrowserConfig | undefined {
  if (!options) return undefined;
  const { unavailable, ...given } = options;
  const executablePath = findBrowser(given.executablePath || undefined);
  if (!executablePath) {
    if (!browserNoteSaid && unavailable) {
      browserNoteSaid = true;
      unavailable(given.executablePath ? `${NO_BROWSER_NOTE} (turnstone.browser.executablePath ${given.executablePath} is not a program)` : NO_BROWSER_NOTE);
    }
    return undefined;
  }
  return { ...DEFAULT_BROWSER, ...given, executablePath };
}

export const DEFAULT_WEB_FETCH: WebFetchConfig = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 5,
  allowPrivateNetwork: false,
  userAgent: webFetchUserAgent(undefined),
};

/** Sites see who is fetching: Turnstone and its version. */
export function webFetchUserAgent(version: string | undefined): string {
  return `Turnstone${version ? `/${version}` : ''} (coding agent; web_fetch)`;
}

export const DEFAULT_LIMITS: ToolLimits = {
  readDefaultLines: 2000,
  readMaxOutputBytes: 256 * 1024,
  readMaxFileBytes: 10 * 1024 * 1024,
  readMaxLineChars: 2000,
  bashDefaultTimeoutMs: 120_000,
  bashMaxTimeoutMs: 600_000,
  maxOutputChars: 30_000,
  maxKeptOutputBytes: DEFAULT_KEPT_OUTPUT_BYTES,
  globMaxResults: 100,
  walkMaxEntries: 200_000,
};

export const ALL_TOOLS: readonly Tool[] = [readFileTool, writeFileTool, editFileTool, bashTool, globSearchTool, grepSearchTool, todoWriteTool, bashOutputTool, killShellTool, webFetchTool, lspTool, skillTool, browserTool];
const NEEDS_SHELL = new Set(['bash', bashOutputTool.name, killShellTool.name]);
const NEEDS_BACKGROUND = new Set([bashOutputTool.name, killShellTool.name]);

function errorOutput(error: unknown): ToolOutput | undefined {
  if (error instanceof ToolError) return { content: error.message, isError: true };
  if (error instanceof WorkspaceError) {
    const where = error.path ? ` (${error.path})` : '';
    const what =
      error.kind === 'permission'
        ? 'Permission denied'
        : error.kind === 'not_found'
          ? 'Not found'
          : error.kind === 'is_directory'
            ? 'Is a directory'
            : error.kind === 'not_directory'
              ? 'A parent of the path is not a folder'
              : 'File system error';
    return { content: `${what}${where}: ${error.message}`, isError: true };
  }
  return undefined;
}

export function createToolExecutor(adapters: ToolAdapters, options: ToolExecutorOptions = {}): ToolExecutor {
  const skills = options.skills ?? (() => []);
  const hasSkills = skills().length > 0;
  const browser = browserConfig(options.browser);
  const tools = ALL_TOOLS.filter(
    (t) =>
      (!NEEDS_SHELL.has(t.name) || adapters.shell) &&
      (!NEEDS_BACKGROUND.has(t.name) || options.background) &&
      (t.name !== 'lsp' || adapters.navigation) &&
      (t.name !== skillTool.name || hasSkills) &&
      (t.name !== browserTool.name || browser),
  );
  const byName = new Map(tools.map((t) => [t.name, t]));
  const env: ToolEnv = {
    workspace: adapters.workspace,
    shell: adapters.shell,
    paths: new PathResolver(adapters.workspace, options.homeDir ?? os.homedir()),
    reads: new ReadRecords(),
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    outputDir: options.outputDir ?? path.join(userCacheDir(), 'output'),
    ripgrepPath: options.ripgrepPath,
    sensitiveFile: sensitiveFileMatcher(options.sensitiveFiles),
    background: options.background,
    webFetch: { ...DEFAULT_WEB_FETCH, ...options.webFetch },
    browser,
    diagnostics: adapters.diagnostics,
    navigation: adapters.navigation,
    skills,
  };

  const lookup = (name: string): Tool => {
    const tool = byName.get(name);
    if (!tool) throw new ToolInputError(`unknown tool: ${name}`);
    return tool;
  };

  return {
    definitions(): ToolDefinition[] {
      return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
    },
    isReadOnly(name: string): boolean | undefined {
      return byName.get(name)?.readOnly;
    },
    async assess(name: string, input: Record<string, unknown>): Promise<ToolUseAssessment> {
      const tool = lookup(name);
      return tool.assess(tool.parse(input), env);
    },
    async preview(name: string, input: Record<string, unknown>): Promise<FileChange | undefined> {
      const tool = lookup(name);
      if (!tool.preview) return undefined;
      return tool.preview(tool.parse(input), env);
    },
    async execute(name: string, input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
      const tool = lookup(name);
      const parsed = tool.parse(input);
      try {
        return await tool.execute(parsed, env, ctx);
      } catch (error) {
        const output = errorOutput(error);
        if (output) return output;
        throw error;
      }
    },
  };
}
