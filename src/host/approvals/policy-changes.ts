// What a change of the permission policy grants: the comparison the policy
// guard (policy-guard.ts) judges a settings change by. Kept free of `vscode`
// so the comparison itself is unit-tested: a slip here lets a workspace
// loosen the policy without the user being asked.
import { type TurnstoneSettings } from '../../agent/settings';
import { canonicalJson } from '../../runtime/canonical-json';
import { english, type Translate } from '../../webview/l10n-format';

export interface PolicySettings extends Pick<TurnstoneSettings, 'permissionMode' | 'allow' | 'deny' | 'ask' | 'sensitiveFiles' | 'hooks' | 'sandbox' | 'sandboxNetwork' | 'sandboxHideSecrets' | 'provider' | 'baseUrl' | 'webFetchAllowPrivateNetwork' | 'bashEnvPassthrough'> {
  /** turnstone.mcpServers as each scope defines it (servers are commands Turnstone starts). */
  mcpServers: { user: unknown; workspace: unknown[] };
}

const MODE_RANK = { plan: 0, ask: 1, acceptEdits: 2, bypassPermissions: 3 } as const;

/** Each MCP server a workspace layer defines, by name, as canonical JSON (to see additions and changes). */
function workspaceServers(m: PolicySettings['mcpServers']): Map<string, string> {
  const out = new Map<string, string>();
  for (const layer of m.workspace) {
    if (layer && typeof layer === 'object') for (const [name, def] of Object.entries(layer as Record<string, unknown>)) out.set(name, canonicalJson(def));
  }
  return out;
}

const added = (from: readonly string[], to: readonly string[]) => to.filter((r) => !from.includes(r));

/** What `next` grants that `accepted` did not, in words (`t`: the host's translator); empty when it grants nothing more. */
export function loosenings(accepted: PolicySettings, next: PolicySettings, t: Translate = english): string[] {
  const more: string[] = [];
  if (MODE_RANK[next.permissionMode] > MODE_RANK[accepted.permissionMode]) more.push(t('permission mode {0} → {1}', accepted.permissionMode, next.permissionMode));
  for (const rule of added(accepted.allow, next.allow)) more.push(t('allow rule {0}', rule));
  for (const rule of added(next.deny, accepted.deny)) more.push(t('deny rule {0} removed', rule));
  for (const rule of added(next.ask, accepted.ask)) more.push(t('ask rule {0} removed', rule));
  for (const glob of added(next.sensitiveFiles, accepted.sensitiveFiles)) more.push(t('sensitive files {0} removed', glob));
  // A hook is a command Turnstone runs, and can approve tool uses: any change to them grants something.
  if (canonicalJson(next.hooks) !== canonicalJson(accepted.hooks)) more.push(t('hooks changed'));
  if (accepted.sandbox !== 'off' && next.sandbox === 'off') more.push(t('command sandbox off'));
  if (accepted.sandboxNetwork === 'deny' && next.sandboxNetwork !== 'deny') more.push(t('network allowed in the sandbox'));
  if (accepted.sandboxHideSecrets && !next.sandboxHideSecrets) more.push(t('secret files readable in the sandbox'));
  if (!accepted.webFetchAllowPrivateNetwork && next.webFetchAllowPrivateNetwork) more.push(t('web_fetch may reach local and private network addresses'));
  for (const name of added(accepted.bashEnvPassthrough, next.bashEnvPassthrough)) more.push(t('commands may see the variable {0}', name));
  // Requests carry the conversation and the API key: where they go is the user's choice.
  if (next.provider !== accepted.provider) more.push(t('provider {0} → {1} (requests and the API key go to it)', accepted.provider, next.provider));
  if (next.baseUrl !== accepted.baseUrl) more.push(t('API base URL {0} → {1} (requests and the API key go there)', accepted.baseUrl || t('(default)'), next.baseUrl || t('(default)')));
  const before = workspaceServers(accepted.mcpServers);
  for (const [name, def] of workspaceServers(next.mcpServers)) {
    if (!before.has(name)) more.push(t('MCP server {0} added (Turnstone would start it)', name));
    else if (before.get(name) !== def) more.push(t('MCP server {0} changed (Turnstone would start it as changed)', name));
  }
  return more;
}

/** The policy settings whose value differs between `before` and `after`: what a write made through Turnstone's own UI changed. */
export function changedPolicyKeys(before: PolicySettings, after: PolicySettings): (keyof PolicySettings)[] {
  return (Object.keys(after) as (keyof PolicySettings)[]).filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key]));
}
