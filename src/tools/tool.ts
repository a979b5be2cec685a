// The shape every tool file exports, and what it gets to work with. The
// registry erases the input type after validation so it can hold them in one list.
import { z } from 'zod';
import {
  type FileChange,
  type PermissionNeed,
  type ToolContext,
  ToolInputError,
  type ToolOutput,
  type ToolUseAssessment,
} from '../runtime/types';
import { type BackgroundCommands } from './shell/background';
import { type ReadRecords } from './files/file-state';
import { type PathResolver } from './files/paths';
import { type CodeNavigation, type EditDiagnostics } from './language-ports';
import { type Shell, type Workspace } from './ports';
import { type SensitiveMatcher } from '../runtime/policy/sensitive-files';
import { type Skill } from '../runtime/context/skills';
import { type WebFetchConfig } from './web-fetch/http-get';
import { type BrowserConfig } from './browser/page-session';

export interface ToolLimits {
  /** read_file: lines returned when no limit is given. */
  readDefaultLines: number;
  /** read_file: bytes of numbered output per call before it stops and says how to continue. */
  readMaxOutputBytes: number;
  /** read_file: files larger than this are refused with a message instead of bytes. */
  readMaxFileBytes: number;
  /** read_file: longer lines are cut so one minified line cannot fill the context. */
  readMaxLineChars: number;
  bashDefaultTimeoutMs: number;
  bashMaxTimeoutMs: number;
  /** bash / grep: characters of output kept in the result (head + tail for bash). */
  maxOutputChars: number;
  /**
   * bash: bytes of a command's output kept on disk (its spilled full output); past it the file keeps head and tail
   * with the cut marked. turnstone.bash.outputCapMB × 1 MB; default DEFAULT_KEPT_OUTPUT_BYTES (64 MB).
   */
  maxKeptOutputBytes: number;
  globMaxResults: number;
  /** Entries a directory walk visits before giving up (runaway trees). */
  walkMaxEntries: number;
}

export interface ToolEnv {
  workspace: Workspace;
  shell: Shell | undefined;
  paths: PathResolver;
  reads: ReadRecords;
  limits: ToolLimits;
  /** Where bash saves the full text of truncated output. */
  outputDir: string;
  /** ripgrep binary for grep_search; undefined means the JS fallback. */
  ripgrepPath: string | undefined;
  /** Which pattern of the sensitive-files list a path matches, if any (reads of it ask). */
  sensitiveFile: SensitiveMatcher;
  /** The session's background commands; absent where none can run (bash_output and kill_shell are then not offered). */
  background?: BackgroundCommands | undefined;
  /** web_fetch: the network rules and limits (turnstone.webFetch.allowPrivateNetwork, 10 MB, 30 s). */
  webFetch: WebFetchConfig;
  /** browser: the browser found and turnstone.browser.*; absent where none is installed (the tool is then not offered). */
  browser?: BrowserConfig | undefined;
  /** The problems language servers report around an edit (VS Code only; absent in the CLI). */
  diagnostics?: EditDiagnostics | undefined;
  /** The editor's code navigation for the lsp tool (VS Code only). */
  navigation?: CodeNavigation | undefined;
  /** The skills found for this turn: the skill tool loads them, read_file may read inside their folders. */
  skills?: (() => readonly Skill[]) | undefined;
}

export interface ToolSpec<I> {
  name: string;
  description: string;
  schema: z.ZodType<I>;
  readOnly: boolean;
  need: PermissionNeed;
  assess(input: I, env: ToolEnv): Promise<ToolUseAssessment>;
  preview?(input: I, env: ToolEnv): Promise<FileChange | undefined>;
  execute(input: I, env: ToolEnv, ctx: ToolContext): Promise<ToolOutput>;
}

export interface Tool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  readOnly: boolean;
  need: PermissionNeed;
  /** Throws ToolInputError with a message the model can act on. */
  parse(raw: Record<string, unknown>): unknown;
  assess(input: unknown, env: ToolEnv): Promise<ToolUseAssessment>;
  preview?(input: unknown, env: ToolEnv): Promise<FileChange | undefined>;
  execute(input: unknown, env: ToolEnv, ctx: ToolContext): Promise<ToolOutput>;
}

export function defineTool<I>(spec: ToolSpec<I>): Tool {
  const jsonSchema = z.toJSONSchema(spec.schema, { io: 'input' }) as Record<string, unknown>;
  delete jsonSchema.$schema;
  const preview = spec.preview;
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: jsonSchema,
    readOnly: spec.readOnly,
    need: spec.need,
    parse(raw) {
      const result = spec.schema.safeParse(raw);
      if (!result.success) throw new ToolInputError(`Invalid input for ${spec.name}:\n${z.prettifyError(result.error)}`);
      return result.data;
    },
    assess: (input, env) => spec.assess(input as I, env),
    ...(preview ? { preview: (input: unknown, env: ToolEnv) => preview(input as I, env) } : {}),
    execute: (input, env, ctx) => spec.execute(input as I, env, ctx),
  };
}
