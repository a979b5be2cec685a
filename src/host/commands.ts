// Every command of the contract, registered in one place.
import * as vscode from 'vscode';
import { type TurnSummary } from '../runtime/events';
import { type CommandId } from './contract';
import { type SessionInfo } from '../runtime/session/session';
import { type Attachment } from './session/session-controller';
import { type SessionDeck } from './session/session-deck';
import { newSessionInWorktree } from './session/worktree-sessions';
import { type ApiKeys } from './secrets';
import { readSettings, setModel } from './settings';
import { applyModelChoice, pickModel } from './model-picker';
import { presetInUse } from './model-lists';
import { pickLanguageModel } from './language-model/lm-picker';
import { restoreChoices } from './session/checkpoints';
import { runSlashInput } from './context/slash';
import { setMemoryBase } from './context/memory-folder';
import { setPluginBase, setPluginSecrets } from './context/plugins';
import { addPluginMarketplace, managePlugins } from './context/plugins-command';
import { type HostMcp } from './mcp';
import { showMcpServers } from './mcp-command';
import { type OriginalContentProvider } from './approvals/proposal-documents';
import { registerGuardedCommands } from './command-guard';

export interface CommandDeps {
  context: vscode.ExtensionContext;
  /** The window's sessions; commands act on the one the panel shows. */
  sessions: SessionDeck;
  keys: ApiKeys;
  originals: OriginalContentProvider;
  log: vscode.LogOutputChannel;
  focusPanel(): Thenable<unknown>;
  /** Put text and context into the panel's input instead of sending (a turn is running). */
  compose(text: string, attachments: Attachment[]): void;
  refreshNotices(): Promise<void>;
  mcp: HostMcp;
}


export function selectionAttachment(editor: vscode.TextEditor): Attachment | undefined {
  const sel = editor.selection;
  if (sel.isEmpty) return undefined;
  const doc = editor.document;
  const rel = vscode.workspace.asRelativePath(doc.uri);
  const start = sel.start.line + 1;
  const end = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  const text = doc.getText(new vscode.Range(sel.start.line, 0, end, 0)).replace(/\n$/, '') || doc.getText(sel);
  return { kind: 'selection', label: `${rel}:${start}-${end}`, text: `File: ${rel} (lines ${start}-${end}, ${doc.languageId})\n\`\`\`${doc.languageId}\n${text}\n\`\`\`` };
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { sessions, keys, log } = deps;
  const controller = () => sessions.shown;
  // `/memory` opens the folder the memory tool keeps under the global storage (context/memory-folder.ts).
  setMemoryBase(deps.context.globalStorageUri.fsPath);
  // Installed plugins and marketplaces live under the same global storage (context/plugins.ts).
  setPluginBase(deps.context.globalStorageUri.fsPath);
  setPluginSecrets(deps.context.secrets);
  const commands: Record<CommandId, (...args: unknown[]) => unknown> = {
    'turnstone.focus': () => deps.focusPanel(),
    'turnstone.showLog': () => log.show(true),
    'turnstone.mcp.showServers': () => showMcpServers(deps.mcp, log),
    'turnstone.plugins.add': (arg?: unknown) => addPluginMarketplace(arg, log),
    'turnstone.plugins.manage': (arg?: unknown) => managePlugins(arg, log),
    'turnstone.newSession': async () => {
      await sessions.newSession();
      await deps.focusPanel();
    },
    'turnstone.newSessionInWorktree': async (arg?: unknown) => {
      const started = await newSessionInWorktree(sessions, arg, log);
      if (started) await deps.focusPanel();
      return started;
    },
    'turnstone.sendPrompt': async (arg?: unknown): Promise<TurnSummary | undefined> => {
      let text = typeof arg === 'string' ? arg : undefined;
      text ??= await vscode.window.showInputBox({ title: vscode.l10n.t('Ask Turnstone'), prompt: vscode.l10n.t('What should Turnstone do?'), ignoreFocusOut: true });
      if (!text?.trim()) return undefined;
      // A custom slash command expands here too; a built-in runs and there is no turn to return.
      const slash = await runSlashInput(text.trim(), log);
      if (slash.kind === 'unavailable') void vscode.window.showWarningMessage(vscode.l10n.t('Turnstone: {0}', slash.message));
      if (slash.kind === 'notice') void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: {0}', slash.message));
      if (slash.kind !== 'prompt') return undefined;
      return controller().send(slash.text, [], [], slash.typed);
    },
    'turnstone.askAboutSelection': async (arg?: unknown) => {
      const editor = vscode.window.activeTextEditor;
      const attachment = editor && selectionAttachment(editor);
      if (!attachment) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: select some code first.'));
        return undefined;
      }
      await deps.focusPanel();
      // The session shown now is the one asked, whatever the user shows while the question box is open.
      const session = controller();
      if (session.isRunning) {
        deps.compose(typeof arg === 'string' ? arg : '', [attachment]);
        return undefined;
      }
      const question =
        typeof arg === 'string'
          ? arg
          : await vscode.window.showInputBox({ title: vscode.l10n.t('Ask Turnstone about {0}', attachment.label), prompt: vscode.l10n.t('Your question about the selected code'), value: vscode.l10n.t('Explain this code.'), ignoreFocusOut: true });
      if (!question?.trim()) return undefined;
      return session.send(question.trim(), [attachment]);
    },
    'turnstone.stop': () => controller().stop(),
    'turnstone.setApiKey': async () => {
      const s = readSettings();
      const provider = s.provider;
      if (provider === 'bedrock' || provider === 'vertex') {
        // Nothing to store: these sign with the cloud's own credential chain.
        const how =
          provider === 'bedrock'
            ? vscode.l10n.t('Turnstone: the bedrock provider uses your AWS credentials (AWS_PROFILE, AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, ~/.aws) and turnstone.bedrock.region; no API key is stored.')
            : vscode.l10n.t('Turnstone: the vertex provider uses your Google application default credentials (gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS), turnstone.vertex.region and turnstone.vertex.projectId; no API key is stored.');
        void vscode.window.showInformationMessage(how);
        return;
      }
      // A preset's server (OpenRouter, Groq, …) keeps its key in a slot of its own.
      if (await keys.prompt(provider, undefined, presetInUse(s))) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: API key saved in secret storage.'));
        await deps.refreshNotices();
      }
    },
    'turnstone.selectModel': async (arg?: unknown) => {
      if (typeof arg !== 'string' && readSettings().provider === 'vscode-lm') {
        const model = await pickLanguageModel(readSettings().model);
        if (model?.trim()) await setModel(model.trim());
        return;
      }
      const choice = typeof arg === 'string' && arg.trim() ? { model: arg.trim() } : await pickModel({ context: deps.context, keys, log });
      if (choice) await applyModelChoice(choice);
    },
    'turnstone.compact': async () => {
      const session = controller();
      if (session.isRunning) {
        void vscode.window.showWarningMessage(vscode.l10n.t('Turnstone: wait for the turn to finish (or stop it) before compacting.'));
        return false;
      }
      const done = await session.compact();
      void vscode.window.showInformationMessage(done ? vscode.l10n.t('Turnstone: the session was compacted.') : vscode.l10n.t('Turnstone: nothing to compact yet.'));
      return done;
    },
    'turnstone.undoTurn': async (arg?: unknown) => {
      // The files go back to the last turn's start checkpoint; `{ confirm: false }` is for scripts and tests.
      const confirm = !(typeof arg === 'object' && arg !== null && (arg as { confirm?: unknown }).confirm === false);
      const result = await controller().checkpointActions.undoLastTurn(deps.originals, confirm);
      if (result === 'no_checkpoint') {
        void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: there is no turn to undo in this session yet (a checkpoint is taken when each turn starts).'));
        return undefined;
      }
      if (result) log.info(`undo turn: restored ${result.restored.length} file(s), skipped ${result.skipped.length}`);
      return result;
    },
    // `{ turn, mode, confirm: false }` is for scripts and tests; without it the user picks the turn and what to restore.
    'turnstone.restoreCheckpoint': async (arg?: unknown) => {
      const opts = (typeof arg === 'object' && arg !== null ? arg : {}) as { turn?: unknown; mode?: unknown; confirm?: unknown };
      // The session shown when the command ran: showing another while the pickers are open must not change it.
      const session = controller();
      const checkpoints = await session.checkpointActions.list();
      if (checkpoints.length === 0) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: this session has no checkpoints yet (one is taken when each turn starts).'));
        return undefined;
      }
      const checkpoint =
        typeof opts.turn === 'number'
          ? checkpoints.find((c) => c.turn === opts.turn)
          : (
              await vscode.window.showQuickPick(
                checkpoints.map((c) => ({ label: vscode.l10n.t('Turn {0}', c.turn), description: relativeTime(new Date(c.at)), detail: c.prompt.replace(/\s+/g, ' ').slice(0, 120), c })),
                { title: vscode.l10n.t('Restore a checkpoint: go back to the start of a turn'), matchOnDetail: true },
              )
            )?.c;
      if (!checkpoint) return undefined;
      const mode =
        restoreChoices().find((c) => c.mode === opts.mode)?.mode ??
        (await vscode.window.showQuickPick(restoreChoices().map((c) => ({ label: c.label, detail: c.detail, mode: c.mode })), { title: vscode.l10n.t('Restore checkpoint: turn {0}', checkpoint.turn) }))?.mode;
      if (!mode) return undefined;
      const done = await session.checkpointActions.restore(checkpoint, mode, deps.originals, opts.confirm !== false);
      if (done?.words !== undefined) {
        await deps.focusPanel();
        deps.compose(done.words, []);
      }
      return done;
    },
    'turnstone.resumeSession': async (arg?: unknown) => {
      if (typeof arg === 'string') return sessions.resume(arg);
      await pickSession(sessions, deps);
      return undefined;
    },
  };
  return registerGuardedCommands(commands, log);
}

const RENAME: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('edit'), tooltip: vscode.l10n.t('Rename') };
const DELETE: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: vscode.l10n.t('Delete') };

// Made on first use: creating an Intl formatter loads ICU's locale data (~30 ms and ~7 MB at activation, measured).
let relative: Intl.RelativeTimeFormat | undefined;
/** "5 minutes ago", "yesterday", "3 weeks ago". */
export function relativeTime(date: Date, now = Date.now()): string {
  const format = (relative ??= new Intl.RelativeTimeFormat(vscode.env.language, { numeric: 'auto' }));
  const s = Math.round((date.getTime() - now) / 1000);
  const steps: [Intl.RelativeTimeFormatUnit, number][] = [['second', 60], ['minute', 60], ['hour', 24], ['day', 7], ['week', 4.35], ['month', 12], ['year', Infinity]];
  let v = s;
  for (const [unit, size] of steps) {
    if (Math.abs(v) < size) return unit === 'second' && Math.abs(v) < 45 ? vscode.l10n.t('just now') : format.format(Math.round(v), unit);
    v /= size;
  }
  return format.format(Math.round(v), 'year');
}

/** The history list: the current session marked, relative times, rename and delete on each row. */
async function pickSession(deck: SessionDeck, deps: CommandDeps): Promise<void> {
  const controller = deck.shown;
  type Item = vscode.QuickPickItem & { session: SessionInfo };
  const sessions = await controller.library.list();
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: no saved sessions in this workspace yet.'));
    return;
  }
  const current = controller.sessionFile;
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = vscode.l10n.t('Turnstone sessions');
  qp.placeholder = vscode.l10n.t('Pick a session to resume');
  qp.matchOnDescription = true;
  qp.items = sessions.map((s) => ({
    label: `${s.path === current ? '$(circle-filled) ' : ''}${s.title}`,
    description: s.path === current ? vscode.l10n.t('current · {0}', relativeTime(s.updatedAt)) : relativeTime(s.updatedAt),
    detail: vscode.l10n.t('{0} messages · {1}', s.messageCount, s.updatedAt.toLocaleString(vscode.env.language)),
    buttons: [RENAME, DELETE],
    session: s,
  }));
  const action = await new Promise<{ kind: 'open' | 'rename' | 'delete'; session: SessionInfo } | undefined>((resolve) => {
    qp.onDidAccept(() => {
      const item = qp.selectedItems[0];
      resolve(item ? { kind: 'open', session: item.session } : undefined);
      qp.hide();
    });
    qp.onDidTriggerItemButton((e) => {
      resolve({ kind: e.button === RENAME ? 'rename' : 'delete', session: e.item.session });
      qp.hide();
    });
    qp.onDidHide(() => resolve(undefined));
    qp.show();
  });
  qp.dispose();
  if (!action) return;
  const { session } = action;
  if (action.kind === 'open') {
    await deck.resume(session.path);
    await deps.focusPanel();
    return;
  }
  if (action.kind === 'rename') {
    const title = await vscode.window.showInputBox({ title: vscode.l10n.t('Rename session'), value: session.title, validateInput: (v) => (v.trim() ? undefined : vscode.l10n.t('A name cannot be empty.')) });
    if (title?.trim()) await deck.rename(session, title.trim().slice(0, 200));
  } else {
    const remove = vscode.l10n.t('Delete');
    const ok = await vscode.window.showWarningMessage(vscode.l10n.t('Delete the session "{0}"?', session.title), { modal: true, detail: vscode.l10n.t('Its saved conversation and checkpoints are removed. This cannot be undone.') }, remove);
    if (ok === remove) await deck.delete(session);
  }
  await pickSession(deck, deps);
}
