// What the extension exports: for scripts and the integration tests (never a global).
import type * as vscode from 'vscode';
import { type TurnSummary } from '../runtime/events';
import { type PermissionDecision } from '../runtime/policy/permissions';
import { type PanelSnapshot } from '../webview/protocol';
import { type HostMcp } from './mcp';
import { type PendingPermissions } from './approvals/pending-permissions';
import { filesChangedBy, type SessionDeck, type SessionState } from './session/session-deck';
import { type ReviewCounts, sessionRow } from './session/sessions-view';

export interface TurnstoneApi {
  readonly chatViewId: string;
  isChatVisible(): boolean;
  sendPrompt(text: string): Promise<TurnSummary>;
  stop(): void;
  pendingPermissions(): { id: string; toolName: string; subject: string; need: string; proposedUri?: string }[];
  /** Settles a pending request as the panel would; false when the id is unknown or already settled. */
  decide(id: string, decision: PermissionDecision): boolean;
  onDidRequestPermission: vscode.Event<string>;
  /** Native modal dialogs on/off (tests that answer through `decide` turn them off). */
  setDialogsEnabled(enabled: boolean): void;
  panelSnapshot(): PanelSnapshot;
  sessionFile(): string | undefined;
  /**
   * The window's open sessions (issue 43), as the Sessions view lists them, each with the key its row's
   * commands take (turnstone.sessions.show/stop/remove), and which session each waiting request belongs to.
   */
  sessions(): { key: string; title: string; state: SessionState; shown: boolean; description: string; filesChanged: number; toReview: number; costUsd?: number; sessionFile?: string; waiting: string[] }[];
  /** What session `key`'s panel holds, shown or not. */
  sessionSnapshot(key: string): PanelSnapshot | undefined;
  /** The MCP servers and their state (empty before the first turn). */
  mcpServers(): { name: string; status: string; tools: string[]; lastError: string | undefined }[];
  /** The files the review lists (issue 44): each with its review point and the count of hunks left. */
  reviewFiles(): Promise<{ path: string; base: string | null; hunks: number }[]>;
  /** The review's groups in the Source Control view, one per session with changes left: label and files. */
  reviewGroups(): { label: string; files: string[] }[];
  /** Time spent in our activate(), for the activation benchmark. */
  readonly activateMs: number;
}

export interface ApiParts {
  chatViewId: string;
  panel: { readonly isVisible: boolean; readonly snapshot: PanelSnapshot };
  sessions: SessionDeck;
  pending: PendingPermissions;
  mcp: HostMcp;
  requested: vscode.Event<string>;
  setDialogsEnabled(enabled: boolean): void;
  reviewFiles(): Promise<{ path: string; base: string | null; hunks: number }[]>;
  reviewGroups(): { label: string; files: string[] }[];
  reviewCounts: ReviewCounts;
}

export function createApi(parts: ApiParts, activateMs: number): TurnstoneApi {
  const { sessions, pending, mcp, panel } = parts;
  return {
    chatViewId: parts.chatViewId,
    isChatVisible: () => panel.isVisible,
    sendPrompt: async (text) => {
      const summary = await sessions.shown.send(text);
      if (!summary) throw new Error('no API key is set: the prompt is held until one is');
      return summary;
    },
    stop: () => sessions.shown.stop(),
    pendingPermissions: () =>
      pending.list().map((p) => ({ id: p.id, toolName: p.request.toolName, subject: p.request.subject, need: p.request.need, ...(p.proposedUri ? { proposedUri: p.proposedUri.toString() } : {}) })),
    decide: (id, decision) => pending.settle(id, decision, 'api'),
    onDidRequestPermission: parts.requested,
    setDialogsEnabled: parts.setDialogsEnabled,
    panelSnapshot: () => panel.snapshot,
    sessionFile: () => sessions.shown.sessionFile,
    sessions: () =>
      sessions.sessions.map((s) => {
        const toReview = parts.reviewCounts.hunksIn(s);
        const row = sessionRow(sessions, s, toReview);
        const cost = s.controller.usage?.costUsd;
        const file = s.controller.sessionFile;
        return {
          key: s.key,
          title: row.label,
          state: row.state,
          shown: sessions.isShown(s.key),
          description: row.description,
          filesChanged: filesChangedBy(s),
          toReview,
          ...(cost !== undefined ? { costUsd: cost } : {}),
          ...(file ? { sessionFile: file } : {}),
          waiting: pending.list().filter((p) => p.session === s.key).map((p) => p.id),
        };
      }),
    sessionSnapshot: (key) => sessions.entry(key)?.mirror.snapshot,
    mcpServers: () => mcp.servers().map((s) => ({ name: s.name, status: s.status, tools: s.tools.map((t) => t.name), lastError: s.lastError })),
    reviewFiles: () => parts.reviewFiles(),
    reviewGroups: () => parts.reviewGroups(),
    activateMs,
  };
}
