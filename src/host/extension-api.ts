// What the extension exports: for scripts and the integration tests (never a global).
import type * as vscode from 'vscode';
import { type TurnSummary } from '../runtime/events';
import { type PermissionDecision } from '../runtime/policy/permissions';
import { type PanelSnapshot } from '../webview/protocol';
import { type HostMcp } from './mcp';
import { type PendingPermissions } from './approvals/pending-permissions';
import { type SessionController } from './session/session-controller';

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
  /** The MCP servers and their state (empty before the first turn). */
  mcpServers(): { name: string; status: string; tools: string[]; lastError: string | undefined }[];
  /** The files the review lists (issue 44): each with its review point and the count of hunks left. */
  reviewFiles(): Promise<{ path: string; base: string | null; hunks: number }[]>;
  /** Time spent in our activate(), for the activation benchmark. */
  readonly activateMs: number;
}

export interface ApiParts {
  chatViewId: string;
  panel: { readonly isVisible: boolean; readonly snapshot: PanelSnapshot };
  controller: SessionController;
  pending: PendingPermissions;
  mcp: HostMcp;
  requested: vscode.Event<string>;
  setDialogsEnabled(enabled: boolean): void;
  reviewFiles(): Promise<{ path: string; base: string | null; hunks: number }[]>;
}

export function createApi(parts: ApiParts, activateMs: number): TurnstoneApi {
  const { controller, pending, mcp, panel } = parts;
  return {
    chatViewId: parts.chatViewId,
    isChatVisible: () => panel.isVisible,
    sendPrompt: async (text) => {
      const summary = await controller.send(text);
      if (!summary) throw new Error('no API key is set: the prompt is held until one is');
      return summary;
    },
    stop: () => controller.stop(),
    pendingPermissions: () =>
      pending.list().map((p) => ({ id: p.id, toolName: p.request.toolName, subject: p.request.subject, need: p.request.need, ...(p.proposedUri ? { proposedUri: p.proposedUri.toString() } : {}) })),
    decide: (id, decision) => pending.settle(id, decision, 'api'),
    onDidRequestPermission: parts.requested,
    setDialogsEnabled: parts.setDialogsEnabled,
    panelSnapshot: () => panel.snapshot,
    sessionFile: () => controller.sessionFile,
    mcpServers: () => mcp.servers().map((s) => ({ name: s.name, status: s.status, tools: s.tools.map((t) => t.name), lastError: s.lastError })),
    reviewFiles: () => parts.reviewFiles(),
    activateMs,
  };
}
