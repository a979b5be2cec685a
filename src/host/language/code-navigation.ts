// CodeNavigation for the VS Code host: the `vscode.execute…Provider` commands,
// which run every provider registered for the document (the built-in
// TypeScript features, any language server extension), turned into plain
// locations and symbols for the lsp tool.
import * as vscode from 'vscode';
import { type CodeNavigation, type CodeSymbol, type LocationOperation, type SourceLocation, type SourcePosition } from '../../tools/language-ports';

const COMMANDS: Record<LocationOperation, string> = {
  definition: 'vscode.executeDefinitionProvider',
  references: 'vscode.executeReferenceProvider',
  implementation: 'vscode.executeImplementationProvider',
};

function location(uri: vscode.Uri, start: vscode.Position): SourceLocation {
  const isFile = uri.scheme === 'file';
  return { path: isFile ? uri.fsPath : uri.toString(), isFile, line: start.line + 1, column: start.character + 1 };
}

/** Definition and implementation providers answer with Location or LocationLink; both name a place. */
function fromLocationLike(item: vscode.Location | vscode.LocationLink): SourceLocation {
  if ('targetUri' in item) return location(item.targetUri, (item.targetSelectionRange ?? item.targetRange).start);
  return location(item.uri, item.range.start);
}

function hoverText(content: vscode.MarkdownString | vscode.MarkedString): string {
  if (typeof content === 'string') return content;
  if ('language' in content) return `\`\`\`${content.language}\n${content.value}\n\`\`\``;
  return content.value;
}

/** Aborting cannot stop a running command, but the tool stops waiting for it. */
function raced<T>(work: Thenable<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e instanceof Error ? e : new Error(String(e)))),
    );
  });
}

export class HostCodeNavigation implements CodeNavigation {
  constructor(private readonly toUri: (path: string) => vscode.Uri) {}

  private uriOf(path: string): vscode.Uri {
    // A location the providers gave for another scheme comes back as its URI string.
    return /^[a-z][\w+.-]+:\/\//i.test(path) ? vscode.Uri.parse(path) : this.toUri(path);
  }

  async lines(path: string, lines: readonly number[]): Promise<Map<number, string>> {
    const out = new Map<number, string>();
    const doc = await vscode.workspace.openTextDocument(this.uriOf(path));
    for (const n of lines) if (n >= 1 && n <= doc.lineCount) out.set(n, doc.lineAt(n - 1).text);
    return out;
  }

  async locations(operation: LocationOperation, path: string, at: SourcePosition, signal: AbortSignal): Promise<SourceLocation[]> {
    const found = await raced(
      vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink> | undefined>(COMMANDS[operation], this.toUri(path), new vscode.Position(at.line - 1, at.column - 1)),
      signal,
    );
    return (found ?? []).map(fromLocationLike);
  }

  async hover(path: string, at: SourcePosition, signal: AbortSignal): Promise<string[]> {
    const found = await raced(vscode.commands.executeCommand<vscode.Hover[] | undefined>('vscode.executeHoverProvider', this.toUri(path), new vscode.Position(at.line - 1, at.column - 1)), signal);
    return (found ?? []).flatMap((h) => h.contents.map(hoverText));
  }

  async documentSymbols(path: string, signal: AbortSignal): Promise<CodeSymbol[]> {
    const uri = this.toUri(path);
    const found = await raced(vscode.commands.executeCommand<Array<vscode.DocumentSymbol | vscode.SymbolInformation> | undefined>('vscode.executeDocumentSymbolProvider', uri), signal);
    const out: CodeSymbol[] = [];
    const walk = (items: ReadonlyArray<vscode.DocumentSymbol | vscode.SymbolInformation>, depth: number) => {
      for (const s of items) {
        const start = 'selectionRange' in s ? s.selectionRange.start : s.location.range.start;
        const detail = 'detail' in s && typeof s.detail === 'string' && s.detail ? s.detail : undefined;
        out.push({ name: s.name, kind: vscode.SymbolKind[s.kind], ...(detail ? { detail } : {}), location: location(uri, start), depth });
        if ('children' in s && s.children.length > 0) walk(s.children, depth + 1);
      }
    };
    walk(found ?? [], 0);
    return out;
  }

  async workspaceSymbols(query: string, signal: AbortSignal): Promise<CodeSymbol[]> {
    const found = await raced(vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query), signal);
    return (found ?? []).map((s) => ({
      name: s.name,
      kind: vscode.SymbolKind[s.kind],
      ...(s.containerName ? { containerName: s.containerName } : {}),
      location: location(s.location.uri, s.location.range.start),
      depth: 0,
    }));
  }
}
