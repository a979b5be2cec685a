// Issue 25.4: one wording for one decision, wherever the user is asked (the
// modal, the notification, the panel's card). Pure: the host's prompter and
// panel bridge and the webview's card all read it, each with its translator
// (`vscode.l10n.t` in the host, ./ui/l10n.ts in the panel; English without one).
import { english, type Translate } from './l10n-format';

/** The buttons' words in the user's language: the host compares the chosen button against the same values. */
export function approvalLabels(t: Translate = english) {
  return {
    allow: t('Allow'),
    deny: t('Deny'),
    denyWithFeedback: t('Deny with feedback…'),
    allowEditsForSession: t('Allow edits for this session'),
    editProposal: t('Edit proposal'),
    /** The modal's close button for an edit: the request stays pending while the user reviews the diff. */
    reviewFirst: t('Review first'),
    /** The modal's close button otherwise: the request stays pending in the panel. */
    decideInPanel: t('Decide in panel'),
  } as const;
}

/** The English labels. */
export const APPROVAL_LABELS = approvalLabels();

/** A rule longer than this does not fit on a button; the button then points at the rule shown beside it. */
const MAX_RULE_ON_BUTTON = 48;

/** The button that saves an allow rule names the exact rule it saves. */
export function alwaysAllowLabel(rule: string, t: Translate = english): string {
  // A fetch's rule is its host: the button says the host ("Always allow example.com"); the rule is shown beside it.
  const host = /^web_fetch\(domain:([^()]+)\)$/.exec(rule)?.[1];
  if (host !== undefined && host.length <= MAX_RULE_ON_BUTTON) return t('Always allow {0}', host);
  // A page's rule is its origin: the button names the origin.
  const origin = /^browser\(origin:([^()]+)\)$/.exec(rule)?.[1];
  if (origin !== undefined && origin.length <= MAX_RULE_ON_BUTTON) return t('Always allow {0}', origin);
  return rule.length <= MAX_RULE_ON_BUTTON ? t('Always allow {0}', rule) : t('Always allow the rule below');
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
export function approvalQuestion(r: ApprovalSubject, t: Translate = english): string {
  if (r.mcp) return t('Use the tool {0} of the MCP server {1}?', r.mcp.tool, r.mcp.server);
  if (r.need === 'edit') return r.creates ? t('Create {0}?', r.subject) : t('Edit {0}?', r.subject);
  if (r.need === 'command') return t('Run this command?');
  if (r.need === 'fetch') return t('Fetch {0}?', r.subject);
  if (r.need === 'browser') return t('Open {0} in the browser?', r.subject);
  return r.subject ? t('Allow {0} on {1}?', r.toolName, r.subject) : t('Allow {0}?', r.toolName);
}

/** A question a subagent asks: it names the subagent, so the user knows who wants it. */
export const subagentAsks = (agent: { name: string; description: string }, question: string, t: Translate = english): string =>
  t('The {0} subagent ({1}) asks: {2}', agent.name, agent.description, question);

/** The policy's reason, as the line under the question. */
export const whyText = (reason: string, t: Translate = english): string => t('Why Turnstone asks: {0}', reason);
