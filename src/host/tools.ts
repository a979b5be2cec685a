// The tool executor for this window: files through vscode.workspace.fs (so
// remote and virtual workspaces work), commands in the "Turnstone" terminal the
// user can watch. No shell in Restricted Mode or in virtual workspaces.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type ToolExecutor } from '../runtime/types';
import { type BackgroundCommands } from '../tools/shell/background';
import { type Workspace } from '../tools/ports';
import { findProgram } from '../tools/os/program-path';
import { createToolExecutor, webFetchUserAgent } from '../tools/registry';
import { CommandSandbox } from '../tools/shell/sandbox';
import { HostCodeNavigation } from './language/code-navigation';
import { HostEditDiagnostics } from './language/edit-diagnostics';
import { LanguageCoverage } from './language/language-coverage';
import { hostSensitiveMatcher } from './panel/load-panel-support';
import { currentHostSkills } from './context/skill-state';
import { readGuardedSettings } from './approvals/policy-guard';
import { type TurnstoneSettings } from './settings';

const MB = 1024 * 1024;
import { TerminalShell } from './terminal/terminal-shell';
import { VsCodeWorkspace, vscodeRipgrepPath } from './vscode-workspace';

/**
 * Each session's own terminal (issue 43): sessions run side by side, and one terminal runs its commands one
 * after another, so a session's `npm test` would wait behind another's build. Tools made without a session
 * (no background commands) share one. A session's terminal closes with its background commands.
 */
const terminals = new Map<object, TerminalShell>();
const NO_SESSION = {};

function sessionTerminal(context: vscode.ExtensionContext, log: (m: string) => void, background: BackgroundCommands | undefined, root: vscode.Uri | undefined): TerminalShell {
  const key = background ?? NO_SESSION;
  const found = terminals.get(key);
  if (found) return found;
  // Settings and folders are read at each command, so a change applies to the next one. A session in a worktree
  // writes there and only there.
  const sandbox = new CommandSandbox(() => {
    const s = readGuardedSettings();
    return { mode: s.sandbox, network: s.sandboxNetwork, roots: root ? [root.fsPath] : workspaceFolderPaths(), hideSecrets: s.sandboxHideSecrets, sensitive: hostSensitiveMatcher(s.sensitiveFiles) };
  });
  const name = terminals.size === 0 ? 'Turnstone' : `Turnstone (${terminals.size + 1})`;
  const created = new TerminalShell({ name, log, sandbox, envPassthrough: () => readGuardedSettings().bashEnvPassthrough });
  terminals.set(key, created);
  const forget = () => {
    if (terminals.get(key) === created) terminals.delete(key);
  };
  context.subscriptions.push(created, { dispose: forget });
  background?.stopWithCommands(async () => {
    forget();
    created.dispose();
  });
  return created;
}

/** What the window has learnt about which languages report problems (language-coverage.ts). */
let coverage: LanguageCoverage | undefined;

function sharedCoverage(context: vscode.ExtensionContext): LanguageCoverage {
  if (!coverage) {
    const created = new LanguageCoverage();
    coverage = created;
    context.subscriptions.push(created, { dispose: () => (coverage = coverage === created ? undefined : coverage) });
  }
  return coverage;
}

/** The workspace folders as the tools see them (files through vscode.workspace.fs); `root`: a session's own (its worktree). */
export function createHostWorkspace(root?: vscode.Uri): VsCodeWorkspace {
  return new VsCodeWorkspace(root ? [root] : (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri));
}

function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
}

export function createHostTools(
  context: vscode.ExtensionContext,
  settings: TurnstoneSettings,
  log: (m: string) => void,
  /** Wraps the tools' workspace, e.g. so checkpoints see each write before it happens. */
  wrapWorkspace: (ws: Workspace) => Workspace = (ws) => ws,
  /** The chat session's background commands. */
  background?: BackgroundCommands,
  /** The session's own folder (a worktree, issue 43) instead of the window's workspace folders. */
  root?: vscode.Uri,
): ToolExecutor {
  const folders = root ? [root] : (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri);
  const files = new VsCodeWorkspace(folders.length > 0 ? folders : [vscode.Uri.file(context.globalStorageUri.fsPath)]);
  const workspace = wrapWorkspace(files);
  const toUri = (p: string) => files.toUri(p);
  const diagnostics = new HostEditDiagnostics(toUri, { afterEdit: settings.diagnosticsAfterEdit, waitMs: settings.diagnosticsWaitMs }, sharedCoverage(context));
  const local = folders[0]?.scheme === 'file';
  const outputDir = path.join((context.storageUri ?? context.globalStorageUri).fsPath, 'tool-output');
  // VS Code's own ripgrep, else one on an absolute PATH entry outside the workspace (never a repository's own `rg`).
  const ripgrepPath = vscodeRipgrepPath() ?? findProgram('rg', { excludeRoots: workspaceFolderPaths() });
  return createToolExecutor(
    { workspace, diagnostics, navigation: new HostCodeNavigation(toUri), ...(vscode.workspace.isTrusted && local ? { shell: sessionTerminal(context, log, background, root) } : {}) },
    {
      ...(ripgrepPath ? { ripgrepPath } : {}),
      outputDir,
      limits: { bashDefaultTimeoutMs: settings.bashTimeoutMs, maxKeptOutputBytes: settings.bashOutputCapMB * MB },
      sensitiveFiles: settings.sensitiveFiles,
      ...(background ? { background } : {}),
      webFetch: { allowPrivateNetwork: settings.webFetchAllowPrivateNetwork, userAgent: webFetchUserAgent(String((context.extension.packageJSON as { version?: string }).version ?? '')) },
      // Offered when a browser is found; the Output channel says once what to install when none is.
      browser: { executablePath: settings.browserExecutablePath || undefined, headless: settings.browserHeadless, unavailable: log },
      skills: currentHostSkills,
    },
  );
}
