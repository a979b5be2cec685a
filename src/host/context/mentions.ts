// What `@` can attach, and what each attachment sends: any workspace file
// (its text) or folder (its listing), the selection, @problems (the editor's
// diagnostics), @terminal (the active terminal's last command and output
// through shell integration: ./terminal-context.ts) and @git (the working-tree
// diff). Everything the webview names is checked here: paths stay inside the
// workspace after symlinks, specials are computed by the host.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { FILTER_DRIVERS_QUERY, filterOverrides, NO_REPOSITORY_PROGRAMS } from '../../runtime/policy/safe-git';
import { cutHead } from '../../runtime/text-cut';
import { type Attachment as PanelAttachment } from '../../webview/protocol';
import { estimateTokens, type AttachmentBlock } from './attachment-blocks';
import { selectionAttachment } from '../commands';
import { PathRanker } from './fuzzy';
import { type TerminalRecorder } from '../terminal/terminal-context';
import { type PathIndex } from './workspace-index';
import { insideWorkspace, realInsideWorkspace } from './workspace-paths';

const MAX_FILE_BYTES = 200_000;
const MAX_LISTING = 1_000;
const MAX_PROBLEMS = 300;
const MAX_DIFF_CHARS = 100_000;

/** The picker's specials, described in the user's language (the label is what is typed after `@`). */
const specials = (): { kind: 'problems' | 'terminal' | 'git'; label: string; path: string }[] => [
  { kind: 'problems', label: 'problems', path: vscode.l10n.t('Diagnostics: file, line, severity, message') },
  { kind: 'terminal', label: 'terminal', path: vscode.l10n.t("The active terminal's last command and its output (through shell integration)") },
  { kind: 'git', label: 'git', path: vscode.l10n.t('Working-tree diff (git diff HEAD)') },
];

const ranker = new PathRanker();

/** The picker's list for `@query`: specials and the selection first when they match, then ranked workspace paths. */
export async function mentionCandidates(query: string, index: PathIndex): Promise<PanelAttachment[]> {
  const q = query.trim().toLowerCase();
  const out: PanelAttachment[] = [];
  for (const s of specials()) if (!q || s.label.startsWith(q)) out.push({ kind: s.kind, label: s.label, path: s.path });
  const editor = vscode.window.activeTextEditor;
  if (editor && !editor.selection.isEmpty && (!q || 'selection'.startsWith(q))) {
    const rel = vscode.workspace.asRelativePath(editor.document.uri);
    const s = editor.selection;
    out.push({ kind: 'selection', path: rel, label: `${path.posix.basename(rel)}:${s.start.line + 1}-${s.end.line + 1}`, range: { startLine: s.start.line + 1, endLine: s.end.line + 1 } });
  }
  const entries = await index.list();
  for (const r of ranker.rank(entries, q, 50)) {
    const name = r.path.slice(r.path.lastIndexOf('/') + 1);
    out.push({ kind: r.kind === 'folder' ? 'folder' : 'file', path: r.path, label: r.kind === 'folder' ? `${name}/` : name });
  }
  return out.slice(0, 200);
}

export interface MentionDeps {
  index: PathIndex;
  terminals: TerminalRecorder;
  log?: vscode.LogOutputChannel;
}

/** What each chosen attachment sends; anything unreadable or outside the workspace is left out (and logged). */
export async function resolveAttachments(items: readonly PanelAttachment[], deps: MentionDeps): Promise<AttachmentBlock[]> {
  const out: AttachmentBlock[] = [];
  for (const a of items) {
    const block = await resolveAttachment(a, deps).catch((e: unknown) => {
      deps.log?.warn(`attachment ${a.kind} ${a.path}: ${String(e)}`);
      return undefined;
    });
    if (block) out.push(block);
  }
  return out;
}

export async function resolveAttachment(a: PanelAttachment, deps: MentionDeps): Promise<AttachmentBlock | undefined> {
  switch (a.kind) {
    case 'selection': {
      const editor = vscode.window.activeTextEditor;
      return (editor && selectionAttachment(editor)) || undefined;
    }
    case 'problems':
      return { kind: 'problems', label: '@problems', text: problemsText() };
    case 'terminal': {
      const { text, note } = deps.terminals.describeActive();
      return { kind: 'terminal', label: '@terminal', text, ...(note ? { note } : {}) };
    }
    case 'git':
      return { kind: 'git', label: '@git', text: await gitDiff() };
    case 'folder':
    case 'file': {
      const abs = await realInsideWorkspace(a.path);
      if (!abs) {
        // Never read outside the workspace on the webview's say-so (nor through a symlink).
        deps.log?.warn(`panel sent an attachment outside the workspace (or missing): ${a.path}`);
        return undefined;
      }
      const rel = vscode.workspace.asRelativePath(insideWorkspace(a.path) ?? abs);
      const st = await fs.stat(abs);
      if (st.isDirectory()) return { kind: 'folder', label: a.label, text: await folderListing(rel, deps.index) };
      const data = await fs.readFile(abs);
      if (data.subarray(0, 8000).includes(0)) return { kind: 'file', label: a.label, text: `File: ${rel} (binary, ${data.length} bytes; not included)` };
      const text = data.subarray(0, MAX_FILE_BYTES).toString('utf8');
      const note = data.length > MAX_FILE_BYTES ? `\n[truncated: first ${MAX_FILE_BYTES} of ${data.length} bytes]` : '';
      return { kind: 'file', label: a.label, text: `File: ${rel}\n\`\`\`\n${text}\n\`\`\`${note}` };
    }
  }
}

/** Token estimate for a chip, and what the attachment cannot include (@terminal), if anything. */
export async function measureAttachment(a: PanelAttachment, deps: MentionDeps): Promise<{ tokens: number; note?: string }> {
  const block = await resolveAttachment(a, deps);
  return { tokens: block ? estimateTokens(block.text) : 0, ...(block?.note ? { note: block.note } : {}) };
}

async function folderListing(rel: string, index: PathIndex): Promise<string> {
  const prefix = rel === '.' || rel === '' ? '' : `${rel.replace(/\/$/, '')}/`;
  const under = (await index.list()).filter((e) => e.path.startsWith(prefix) && e.path !== prefix);
  const lines = under.slice(0, MAX_LISTING).map((e) => (e.kind === 'folder' ? `${e.path}/` : e.path));
  const note = under.length > MAX_LISTING ? `\n[${under.length - MAX_LISTING} more entries not listed]` : '';
  return `Folder listing of ${prefix || './'} (${under.length} entries; contents not included, read files with read_file):\n${lines.join('\n')}${note}`;
}

const SEVERITY = ['error', 'warning', 'info', 'hint'];

export function problemsText(): string {
  const rows: { sev: number; line: string }[] = [];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    const rel = vscode.workspace.asRelativePath(uri);
    for (const d of diagnostics) {
      const source = d.source ? ` (${d.source}${d.code !== undefined ? ` ${typeof d.code === 'object' ? String(d.code.value) : String(d.code)}` : ''})` : '';
      rows.push({ sev: d.severity, line: `${rel}:${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity] ?? 'info'}: ${d.message.replace(/\s+/g, ' ')}${source}` });
    }
  }
  if (rows.length === 0) return 'Problems: none (the editor reports no diagnostics).';
  rows.sort((a, b) => a.sev - b.sev);
  const counts = SEVERITY.map((s, i) => [s, rows.filter((r) => r.sev === i).length] as const).filter(([, n]) => n > 0);
  const head = `Problems (${counts.map(([s, n]) => `${n} ${s}${n === 1 ? '' : 's'}`).join(', ')}):`;
  const more = rows.length > MAX_PROBLEMS ? `\n[${rows.length - MAX_PROBLEMS} more not listed]` : '';
  return `${head}\n${rows.slice(0, MAX_PROBLEMS).map((r) => r.line).join('\n')}${more}`;
}

/** `git diff HEAD` of the first folder, capped; repository settings that could run programs are switched off. */
export async function gitDiff(): Promise<string> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!root || root.scheme !== 'file') return 'Git: no local workspace folder.';
  // A repository's config can name programs (external diff, textconv, fsmonitor): not in an untrusted folder.
  if (!vscode.workspace.isTrusted) return 'Git: not read in Restricted Mode (trust the folder to attach the diff).';
  const run = (a: string[]) =>
    new Promise<{ out: string; err: string; code: number }>((resolve) => {
      execFile('git', ['--no-optional-locks', ...NO_REPOSITORY_PROGRAMS, ...a], { cwd: root.fsPath, maxBuffer: 16 * 1024 * 1024, timeout: 10_000, env: { ...process.env, GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0' } }, (error, stdout, stderr) =>
        resolve({ out: String(stdout), err: String(stderr), code: error ? (typeof error.code === 'number' ? error.code : 1) : 0 }),
      );
    });
  // A diff of the work tree cleans changed files through their filter drivers: emptied by name, with every other program the config names.
  const args = [...filterOverrides((await run([...FILTER_DRIVERS_QUERY])).out), 'diff', '--no-ext-diff', '--no-textconv', '--no-color', 'HEAD'];
  let r = await run(args);
  // A repository without commits has no HEAD: diff the work tree against the index instead.
  if (r.code !== 0 && /HEAD|unknown revision/.test(r.err)) r = await run(args.slice(0, -1));
  if (r.code !== 0) return `Git: the diff could not be read (${r.err.trim().split('\n')[0] || `exit ${r.code}`}).`;
  if (!r.out.trim()) return 'Git: no changes in the working tree.';
  const cut = r.out.length > MAX_DIFF_CHARS ? `\n[diff cut: first ${MAX_DIFF_CHARS} of ${r.out.length} characters]` : '';
  return `Working-tree diff (git diff HEAD):\n${cutHead(r.out, MAX_DIFF_CHARS)}${cut}`;
}
