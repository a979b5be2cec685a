// Issue 25.4: one wording for one decision, wherever the user is asked (the
// modal, the notification, the panel's card). Pure: the host's prompter and
// panel bridge and the webview's card all read it.

export const APPROVAL_LABELS = {
  allow: 'Allow',
  deny: 'Deny',
  denyWithFeedback: 'Deny with feedback…',
  allowEditsForSession: 'Allow edits for this session',
  editProposal: 'Edit proposal',
  /** The modal's close button for an edit: the request stays pending while the user reviews the diff. */
  reviewFirst: 'Review first',
  /** The modal's close button otherwise: the request stays pending in the panel. */
  decideInPanel: 'Decide in panel',
} as const;

/** A rule longer than this does not fit on a button; the button then points at the rule shown beside it. */
const MAX_RULE_ON_BUTTON = 48;

/** The button that saves an allow rule names the exact rule it saves. */
export function alwaysAllowLabel(rule: string): string {
  return rule.length <= MAX_RULE_ON_BUTTON ? `Always allow ${rule}` : 'Always allow the rule below';
}

/** Whether the rule is on its button (else it must be shown in full beside it). */
export const ruleFitsButton = (rule: string): boolean => rule.length <= MAX_RULE_ON_BUTTON;

export interface ApprovalSubject {
  need: string;
  toolName: string;
  subject: string;
  /** An edit that creates the file. */
  creates?: boolean;
  /** For MCP tools: the server and the tool's own name. */
  mcp?: { server: string; tool: string } | undefined;
}

/** The question every surface asks, e.g. "Run this command?". */
export function approvalQuestion(r: ApprovalSubject): string {
  if (r.mcp) return `Use the tool ${r.mcp.tool} of the MCP server ${r.mcp.server}?`;
  if (r.need === 'edit') return `${r.creates ? 'Create' : 'Edit'} ${r.subject}?`;
  if (r.need === 'command') return 'Run this command?';
  return `Allow ${r.toolName}${r.subject ? ` on ${r.subject}` : ''}?`;
}

/** The policy's reason, as the line under the question. */
export const whyText = (reason: string): string => `Why Turnstone asks: ${reason}`;
