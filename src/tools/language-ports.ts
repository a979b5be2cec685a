// What only an editor knows about code, as two ports the VS Code host
// implements (src/host/language): the problems its language servers report
// for a file, and their code navigation. The CLI has no language servers and
// leaves both out: edits then add nothing and the `lsp` tool is not offered.
// Paths crossing these ports are absolute OS paths, as in ports.ts.

export type ProblemSeverity = 'error' | 'warning';

/** One diagnostic of a file (errors and warnings only: hints and information are not for the model). */
export interface Problem {
  /** 1-based. */
  line: number;
  severity: ProblemSeverity;
  message: string;
  code?: string;
  /** Who reported it, e.g. `ts`, `eslint`. */
  source?: string;
}

/** The file's problems around one write, started before the write so no report of the new content is missed. */
export interface ProblemWatch {
  /** The problems the file had before the write (empty for a new file). */
  readonly before: readonly Problem[];
  /** After the write: waits, bounded by the host's setting, for the file's problems to settle, and returns them. */
  settle(signal: AbortSignal): Promise<readonly Problem[]>;
  /** Stops watching without settling (the write failed). */
  dispose(): void;
}

export interface EditDiagnostics {
  /**
   * Called before an edit tool writes `path`. Undefined when nothing will be
   * reported for it (the setting is off, no language server covers its
   * language): the edit then waits for nothing.
   */
  watch(path: string, signal: AbortSignal): Promise<ProblemWatch | undefined>;
}

/** A place in a file: `line` and `column` 1-based, the column counted in UTF-16 code units as editors do. */
export interface SourcePosition {
  line: number;
  column: number;
}

export interface SourceLocation extends SourcePosition {
  /** Absolute path; for a document the host cannot map to a path (another scheme), its URI. */
  path: string;
  /** False when `path` is a URI rather than a file path. */
  isFile: boolean;
}

export interface CodeSymbol {
  name: string;
  /** The editor's kind, e.g. `Function`, `Class`, `Variable`. */
  kind: string;
  detail?: string;
  containerName?: string;
  location: SourceLocation;
  /** Nesting in a document's outline (0 for top level). */
  depth: number;
}

export type LocationOperation = 'definition' | 'references' | 'implementation';

export interface CodeNavigation {
  /** The text of the given 1-based lines as the language servers see it (an open editor's unsaved text included). */
  lines(path: string, lines: readonly number[]): Promise<Map<number, string>>;
  locations(operation: LocationOperation, path: string, position: SourcePosition, signal: AbortSignal): Promise<SourceLocation[]>;
  /** Hover texts (Markdown), in the order the providers gave them. */
  hover(path: string, position: SourcePosition, signal: AbortSignal): Promise<string[]>;
  documentSymbols(path: string, signal: AbortSignal): Promise<CodeSymbol[]>;
  workspaceSymbols(query: string, signal: AbortSignal): Promise<CodeSymbol[]>;
}
