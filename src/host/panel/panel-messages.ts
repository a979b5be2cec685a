// What the host does with each (already validated) message from the webview.
// The webview is untrusted: it can only ask for what a user could do, and every
// path or request id it names is checked here.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { type PermissionDecision } from '../../runtime/policy/permissions';
import { type Message } from '../../runtime/types';
import { type HostEvent, type TranscriptItem, type WebviewToHost } from '../../webview/protocol';
import { toolUseIdOfPermissionItem } from '../approvals/permission-ids';
import { type PendingPermissions } from '../approvals/pending-permissions';
import { type NativePermissionPrompter } from '../approvals/permission-prompter';
import { type TypingGate } from '../approvals/typing-gate';
import { ORIGINAL_SCHEME, type OriginalContentProvider } from '../approvals/proposal-documents';
import { mentionCandidates, measureAttachment, resolveAttachments, type MentionDeps } from '../context/mentions';
import { type SessionController } from '../session/session-controller';
import { runSlashInput, slashCommandList } from '../context/slash';
import { type ApiKeys } from '../secrets';
import { ownSettingsChange } from '../approvals/policy-guard';
import { readSettings } from '../settings';
import { loadCore } from '../session/load-core';
import { realInsideWorkspace } from '../context/workspace-paths';
import { presetInUse } from '../model-lists';

export interface PanelMessageDeps {
  controller: SessionController;
  pending: PendingPermissions;
  /** "Always allow <rule>" and "Edit proposal" go through the prompter (it saves the rule, opens the proposal). */
  prompter: Pick<NativePermissionPrompter, 'allowAlways' | 'editProposal'>;
  /** The panel reports keystrokes: a modal approval waits until the user pauses. */
  typing: TypingGate;
  log: vscode.LogOutputChannel;
  post: (event: HostEvent) => void;
  originals: OriginalContentProvider;
  /** The panel's transcript as the host mirrors it. */
  items: () => readonly TranscriptItem[];
  mentions: MentionDeps;
  keys: ApiKeys;
}

/** What a model id from the webview may look like: claude-sonnet-4-5, gpt-4o, openai/gpt-4o, llama3:8b… */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:@/+-]{0,199}$/;

function toDecision(m: Extract<WebviewToHost, { type: 'permission_decision' }>): PermissionDecision {
  if (m.decision === 'deny') return m.feedback?.trim() ? { kind: 'deny', feedback: m.feedback.trim() } : { kind: 'deny' };
  return { kind: 'allow', scope: m.decision === 'allow_session' ? 'session' : 'once' };
}

type ErrorItem = Extract<TranscriptItem, { kind: 'error' }>;

/** An open card that paused a turn (a spend cap, the loop guard), as the host itself posted it. */
function pausedCard(items: readonly TranscriptItem[], id: string): ErrorItem | undefined {
  const item = items.find((i) => i.id === id);
  return item?.kind === 'error' && item.action === 'continue' && !item.resolved && (item.cause === 'loop' || (!!item.continueUsd && !!item.setting)) ? item : undefined;
}

export async function handlePanelMessage(m: WebviewToHost, deps: PanelMessageDeps): Promise<void> {
  const { controller, pending, log } = deps;
  switch (m.type) {
    case 'ready':
      // The `@` picker's list is built now, in the background, so the first `@` finds it ready.
      deps.mentions.index.warm();
      await controller.instructions.refresh();
      return;
    case 'open_instructions': {
      // Only a file the host itself listed: the label is looked up, never used as a path.
      const file = controller.instructions.fileOf(m.label);
      if (!file) {
        log.warn(`panel asked to open an instruction file that is not in use: ${m.label}`);
        return;
      }
      await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: true });
      return;
    }
    case 'send':
    case 'steer':
    case 'queue': {
      if (m.type === 'send' && m.images?.length) {
        // Through the core bundle: image decoding stays out of what activation compiles.
        const checked = loadCore().checkPanelImages(m.images);
        if ('error' in checked) {
          controller.panel.hostCard({ message: checked.error, errorKind: 'invalid_image', retryable: false });
          return;
        }
        if (m.text.trimStart().startsWith('/')) {
          controller.panel.hostCard({ message: vscode.l10n.t('Images cannot be attached to a slash command: send them in a message of their own.'), errorKind: 'invalid_image', retryable: false });
          return;
        }
        await controller.send(m.text, await resolveAttachments(m.attachments, deps.mentions), checked.images);
        return;
      }
      // `/name …`: a built-in runs here; a custom command's text is what gets sent.
      const slash = await runSlashInput(m.text, log);
      if (slash.kind === 'ran') return;
      if (slash.kind === 'unavailable') {
        controller.panel.hostCard({ message: slash.message, errorKind: 'slash_command', retryable: false });
        return;
      }
      if (slash.kind === 'notice') {
        controller.panel.hostCard({ message: slash.message, errorKind: 'slash_command', cause: 'notice', retryable: false, action: 'none' });
        return;
      }
      if (m.type === 'send') await controller.send(slash.text, await resolveAttachments(m.attachments, deps.mentions), [], slash.typed);
      else if (m.type === 'queue') controller.queue(slash.text, await resolveAttachments(m.attachments, deps.mentions), slash.typed);
      else controller.steer(slash.text, slash.typed);
      return;
    }
    case 'slash_list':
      deps.post({ type: 'slash_commands', commands: await slashCommandList(log) });
      return;
    case 'unqueue':
      controller.unqueue(m.id);
      return;
    case 'stop':
      controller.stop();
      return;
    case 'stop_background':
      await controller.background.stop(m.id);
      return;
    case 'retry':
      await controller.retry();
      return;
    case 'permission_decision': {
      const id = toolUseIdOfPermissionItem(m.requestId);
      // A stale or forged id settles nothing; "always" saves only the rule the host itself suggested for that request.
      const settled = m.decision === 'allow_always' ? await deps.prompter.allowAlways(id, 'panel') : pending.settle(id, toDecision(m), 'panel');
      if (!settled) log.warn(`panel answered an unknown or settled permission request: ${m.requestId}`);
      return;
    }
    case 'edit_proposal':
      if (!(await deps.prompter.editProposal(toolUseIdOfPermissionItem(m.requestId)))) log.warn(`panel asked to edit a proposal that is not waiting: ${m.requestId}`);
      return;
    case 'typing':
      deps.typing.panelTyping(m.active);
      return;
    case 'continue_turn': {
      const item = pausedCard(deps.items(), m.itemId);
      if (!item) {
        log.warn(`panel asked to continue after an item that is not an open paused card: ${m.itemId}`);
        return;
      }
      // The loop guard's count is the turn's: the next turn goes on from the kept results with a fresh one.
      if (item.cause === 'loop') await controller.retry();
      // Only a spend-cap card the host itself posted, with its own amount: the webview names an item, never a sum.
      else if (item.continueUsd) await controller.continuePastCap(item.setting === 'turnstone.maxCostPerSessionUsd' ? 'session' : 'turn', item.continueUsd);
      return;
    }
    case 'dismiss_card': {
      const item = pausedCard(deps.items(), m.itemId);
      if (item) controller.panel.settleHostCard(item, vscode.l10n.t('Stopped here. Send a message to go on or to steer the agent.'));
      return;
    }
    case 'open_setting':
      await vscode.commands.executeCommand('workbench.action.openSettings', m.setting);
      return;
    case 'open_diff': {
      const id = m.requestId ? toolUseIdOfPermissionItem(m.requestId) : m.toolId;
      const entry = id ? pending.get(id) : undefined;
      if (entry?.proposedUri) {
        const original = entry.proposedUri.with({ scheme: ORIGINAL_SCHEME });
        await vscode.commands.executeCommand('vscode.diff', original, entry.proposedUri, `${path.basename(entry.proposedUri.path)} ↔ proposed by Turnstone`);
        return;
      }
      // A finished edit: its before/after as the turn recorded them (C5).
      const change = m.toolId ? controller.editOf(m.toolId) : undefined;
      if (change) {
        const name = path.basename(change.path);
        const before = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/edits/${m.toolId}/before/${name}` });
        const after = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/edits/${m.toolId}/after/${name}` });
        deps.originals.set(before, change.before ?? '');
        deps.originals.set(after, change.after ?? '');
        await vscode.commands.executeCommand('vscode.diff', before, after, `${name} (edited by Turnstone)`);
      }
      return;
    }
    case 'review_changes': {
      // Only an edit this session recorded: the webview names a tool use, never a path.
      const change = controller.editOf(m.toolId);
      if (change) await vscode.commands.executeCommand('turnstone.review.show', change.path);
      return;
    }
    case 'open_link':
      await vscode.env.openExternal(vscode.Uri.parse(m.href, true));
      return;
    case 'open_file': {
      const abs = await realInsideWorkspace(m.path);
      if (!abs) {
        log.warn(`panel asked to open a path outside the workspace (or missing): ${m.path}`);
        return;
      }
      const line = Math.max(0, (m.line ?? 1) - 1);
      await vscode.window.showTextDocument(vscode.Uri.file(abs), { selection: new vscode.Range(line, 0, line, 0), preview: true });
      return;
    }
    case 'show_tool_output': {
      // Only a result this session recorded for a bash tool use: the webview names an id, never content.
      const content = bashResultOf(controller.messages, m.toolId);
      if (content === undefined) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: the output of that command is no longer in this session.'));
        return;
      }
      // A read-only virtual document (our content provider): nothing to save, no prompt on close.
      const uri = vscode.Uri.from({ scheme: ORIGINAL_SCHEME, path: `/output/${encodeURIComponent(m.toolId)}/bash output.log` });
      deps.originals.set(uri, content);
      const doc = await vscode.workspace.openTextDocument(uri);
      await vscode.window.showTextDocument(doc, { preview: true });
      return;
    }
    case 'restore_checkpoint': {
      const checkpoint = checkpointOfMessage(m.itemId, deps);
      if (checkpoint === undefined) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: this message has no checkpoint (it was sent before checkpoints were kept, or the folder is not on this machine).'));
        return;
      }
      await vscode.commands.executeCommand('turnstone.restoreCheckpoint', { turn: checkpoint.turn });
      return;
    }
    case 'open_terminal': {
      if (m.backgroundId !== undefined) {
        if (!controller.background.reveal(m.backgroundId)) void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: {0} is no longer running; its terminal has closed.', m.backgroundId));
        return;
      }
      const terminal = vscode.window.terminals.find((t) => t.name === 'Turnstone');
      if (terminal) terminal.show(false);
      else void vscode.window.showInformationMessage(vscode.l10n.t('Turnstone: the terminal the command ran in was closed.'));
      return;
    }
    case 'new_session':
      await vscode.commands.executeCommand('turnstone.newSession');
      return;
    case 'resume_session':
      await vscode.commands.executeCommand('turnstone.resumeSession');
      return;
    case 'select_model':
      // The panel's Model button sends no id (the host shows the quick pick); an id it names must look like one.
      if (m.model !== undefined && !MODEL_ID.test(m.model)) {
        log.warn(`panel asked for an invalid model id: ${JSON.stringify(m.model.slice(0, 80))}`);
        return;
      }
      await vscode.commands.executeCommand('turnstone.selectModel', m.model);
      return;
    case 'attach':
      deps.post({ type: 'attach_candidates', query: m.query, candidates: await mentionCandidates(m.query, deps.mentions.index) });
      return;
    case 'attach_measure':
      deps.post({ type: 'attachment_measured', kind: m.attachment.kind, path: m.attachment.path, ...(await measureAttachment(m.attachment, deps.mentions)) });
      return;
    case 'notice_action':
      if (m.actionId === 'set_key') await vscode.commands.executeCommand('turnstone.setApiKey');
      else if (m.actionId === 'trust') await vscode.commands.executeCommand('workbench.trust.manage');
      else if (m.actionId === 'mcp_servers') await vscode.commands.executeCommand('turnstone.mcp.showServers');
      return;
    case 'set_api_key': {
      const s = readSettings();
      // Straight to SecretStorage (a preset's server: its own slot); never logged. keys.onDidChange then refreshes the notice and sends a held prompt.
      await deps.keys.set(s.provider, m.key, presetInUse(s));
      return;
    }
    case 'set_permission_mode': {
      // Restricted Mode: plan only, whatever the (untrusted) webview asks for.
      if (!vscode.workspace.isTrusted && m.mode !== 'plan') {
        log.warn(`panel asked for permission mode ${m.mode} in Restricted Mode`);
        return;
      }
      const c = vscode.workspace.getConfiguration('turnstone');
      if (m.mode === 'bypassPermissions' && c.get('permissionMode') !== 'bypassPermissions') {
        // The one switch that removes every question: confirmed natively, never on the webview's word alone.
        const bypass = vscode.l10n.t('Bypass Permissions');
        const ok = await vscode.window.showWarningMessage(
          vscode.l10n.t('Let Turnstone edit files and run commands without asking?'),
          { modal: true, detail: vscode.l10n.t('Deny rules still apply. You can switch back in the panel or with turnstone.permissionMode.') },
          bypass,
        );
        if (ok !== bypass) {
          deps.post({ type: 'permission_mode', info: { mode: readSettings().permissionMode, restricted: false } });
          return;
        }
      }
      const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      // The user's own choice in Turnstone's UI: the policy guard applies it without asking again.
      await ownSettingsChange(() => c.update('permissionMode', m.mode, target));
      return;
    }
    case 'copy_request_id':
      await vscode.env.clipboard.writeText(m.requestId);
      vscode.window.setStatusBarMessage(`Turnstone: request id ${m.requestId} copied`, 4000);
      return;
    case 'log':
      log[m.level === 'info' ? 'info' : m.level === 'warn' ? 'warn' : 'error'](`webview: ${m.message}`);
      return;
  }
}

/** The recorded result of a bash tool use, or undefined when the id is not one of this session's bash calls. */
export function bashResultOf(messages: readonly Message[], toolId: string): string | undefined {
  let isBash = false;
  for (const message of messages) {
    for (const block of message.content) {
      if (block.type === 'tool_use' && block.id === toolId) isBash = block.name === 'bash';
      else if (block.type === 'tool_result' && block.tool_use_id === toolId && isBash) return block.content;
    }
  }
  return undefined;
}

/** The checkpoint of the turn a user message started, as the message's item names it (undefined: none was taken). */
function checkpointOfMessage(itemId: string, deps: PanelMessageDeps): { turn: number } | undefined {
  const item = deps.items().find((i) => i.id === itemId);
  return item?.kind === 'user' && item.checkpointTurn !== undefined ? { turn: item.checkpointTurn } : undefined;
}
