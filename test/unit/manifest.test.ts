import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { APPROVAL_COMMANDS, CHAT_VIEW, COMMANDS, INTERNAL_COMMANDS, REVIEW_COMMANDS, SETTINGS, VIEW_CONTAINER } from '../../src/host/contract';
import { PROVIDER_NAMES } from '../../src/agent/settings';

const root = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// Titles and descriptions are `%key%` placeholders (issue 25, languages): read them as English users see them.
const nls: Record<string, string> = JSON.parse(readFileSync(path.join(root, 'package.nls.json'), 'utf8'));
const english = (value: unknown): string | undefined =>
  typeof value === 'string' ? value.replace(/^%(.+)%$/, (whole, key: string) => nls[key] ?? whole) : undefined;
// The manifest is checked against the repository's own copy of the contract, so a
// clone with nothing beside it tests the same thing as CI.
const contractsPath = path.join(root, 'docs', 'contracts.md');
const readContracts = () => readFileSync(contractsPath, 'utf8');
// The team's shared design folder, when this checkout sits beside it (CI lays it out so).
const sharedContractsPath = process.env.TURNSTONE_CONTRACTS ?? path.resolve(root, '..', 'shared', 'design', 'contracts.md');

describe('manifest and contract consistency', () => {
  it('docs/contracts.md is the shared contract, word for word', function () {
    if (!existsSync(sharedContractsPath)) this.skip(); // a lone clone has no shared folder: nothing to compare with
    assert.equal(readContracts(), readFileSync(sharedContractsPath, 'utf8'), `docs/contracts.md differs from ${sharedContractsPath}: copy it over`);
  });

  it('has the fixed identity, engine and kind', () => {
    assert.equal(`${manifest.publisher}.${manifest.name}`, 'turnstone.turnstone');
    assert.equal(manifest.displayName, 'Turnstone');
    assert.equal(manifest.engines.vscode, '^1.100.0');
    assert.deepEqual(manifest.extensionKind, ['workspace']);
    const typesVersion: string = manifest.devDependencies['@types/vscode'];
    assert.match(typesVersion, /^[\^~]?1\.100\./, '@types/vscode is pinned to the engine minor');
  });

  it('activates lazily, never on *', () => {
    assert.ok(!manifest.activationEvents.includes('*'));
    assert.ok(manifest.activationEvents.includes(`onView:${CHAT_VIEW}`));
  });

  it('declares limited support for untrusted workspaces with a description', () => {
    const untrusted = manifest.capabilities.untrustedWorkspaces;
    assert.equal(untrusted.supported, 'limited');
    assert.ok((english(untrusted.description) ?? '').length > 20);
    assert.match(english(untrusted.description) ?? '', /plan mode/);
  });

  it('issue 47 placement: one container, in the secondary side bar where VS Code takes it and in the activity bar otherwise, with the chat webview view', () => {
    const containers = manifest.contributes.viewsContainers;
    // The first key that registers the id wins (VS Code keeps an existing container); 1.100 ignores secondarySidebar.
    assert.deepEqual(Object.keys(containers), ['secondarySidebar', 'activitybar']);
    for (const where of ['secondarySidebar', 'activitybar']) assert.deepEqual(containers[where].map((c: { id: string }) => c.id), [VIEW_CONTAINER]);
    assert.deepEqual(containers.secondarySidebar, containers.activitybar, 'the same title and icon wherever it lands');
    const view = manifest.contributes.views[VIEW_CONTAINER].find((v: { id: string }) => v.id === CHAT_VIEW);
    assert.equal(view?.type, 'webview');
  });

  it('contributes every command of the contract, in the Turnstone category, and nothing else', () => {
    const contracts = readContracts();
    const table = [...contracts.matchAll(/^\| `(turnstone\.[a-zA-Z]+)` \|/gm)].map((m) => m[1]!);
    // Commands added in the second wave are named in prose ("Commands: `turnstone.mcp.showServers`").
    // Issue 46 names two in one list ("Commands `turnstone.plugins.add`,\n`turnstone.plugins.manage`"): each id of the list counts.
    // Issue 43's runs over a line break ("Command\n`turnstone.newSessionInWorktree`").
    const secondWave = new Set([...contracts.matchAll(/Commands?:?\s+((?:`turnstone\.[a-zA-Z.]+`(?:,\s+(?:and\s+)?)?)+)/g)].flatMap((m) => [...m[1]!.matchAll(/`(turnstone\.[a-zA-Z.]+)`/g)].map((id) => id[1]!)));
    for (const id of table) assert.ok((COMMANDS as readonly string[]).includes(id), `${id} of the contract is in src/host/contract.ts`);
    for (const id of COMMANDS) assert.ok(table.includes(id) || secondWave.has(id), `${id} is named in contracts.md`);
    const fromDoc = [...COMMANDS].sort();
    const contributed = manifest.contributes.commands;
    // Besides the contract: the documented internal commands (INTERNAL_COMMANDS), and nothing else.
    assert.deepEqual(contributed.map((c: { command: string }) => c.command).sort(), [...fromDoc, ...INTERNAL_COMMANDS].sort());
    for (const c of contributed) assert.equal(c.category, 'Turnstone', c.command);
    for (const id of fromDoc) {
      assert.ok(manifest.activationEvents.includes(`onCommand:${id}`), `activation event for ${id}`);
    }
  });

  it('issue 19: Allow/Deny sit in the proposal diff editor\'s title bar while its request waits, and in the palette only while one waits', () => {
    const title = manifest.contributes.menus['editor/title'] as { command: string; when: string }[];
    const palette = manifest.contributes.menus.commandPalette as { command: string; when: string }[];
    for (const id of APPROVAL_COMMANDS) {
      // 25.1: Edit Proposal shows only while the proposal is still read-only.
      const when = id === 'turnstone.editProposal' ? 'resource in turnstone.pendingProposals && resource not in turnstone.editableProposals' : 'resource in turnstone.pendingProposals';
      assert.equal(title.find((m) => m.command === id)?.when, when, id);
      assert.equal(palette.find((m) => m.command === id)?.when, 'turnstone.permissionPending', id);
    }
    assert.deepEqual(manifest.contributes.configuration.properties['turnstone.approvalDialog'].enum, ['modal', 'notification', 'panel']);
    // Issue 47 item 1: approvals are answered inline (the card, the diff's title bar); the modal is opt-in.
    assert.equal(manifest.contributes.configuration.properties['turnstone.approvalDialog'].default, 'panel');
  });

  it("issue 44: Keep / Undo sit in the gutter peek of the agent's changes, on each file and on the group of the Turnstone source control, never in the palette", () => {
    const menus = manifest.contributes.menus as Record<string, { command: string; when: string }[]>;
    const palette = menus.commandPalette!;
    for (const id of REVIEW_COMMANDS) assert.equal(palette.find((m) => m.command === id)?.when, 'false', id);
    const where = (menu: string) => menus[menu]!.filter((m) => m.command.startsWith('turnstone.review.')).map((m) => `${m.command} when ${m.when}`);
    assert.deepEqual(where('scm/change/title'), ['turnstone.review.keep when originalResourceScheme == turnstone-review', 'turnstone.review.undo when originalResourceScheme == turnstone-review']);
    assert.deepEqual(where('scm/resourceState/context'), ['turnstone.review.keepFile when scmProvider == turnstone', 'turnstone.review.undoFile when scmProvider == turnstone']);
    assert.deepEqual(where('scm/resourceGroup/context'), ['turnstone.review.keepAll when scmProvider == turnstone', 'turnstone.review.undoAll when scmProvider == turnstone']);
    // A review comment's Send to agent: on the reply box of Turnstone's own comment threads only.
    assert.deepEqual(where('comments/commentThread/context'), ['turnstone.review.sendToAgent when commentController == turnstone']);
  });

  it('puts "Ask Turnstone about selection" in the editor context menu only with a selection', () => {
    const entry = manifest.contributes.menus['editor/context'].find((m: { command: string }) => m.command === 'turnstone.askAboutSelection');
    assert.equal(entry?.when, 'editorHasSelection');
  });

  it('has view-title actions for new session and stop, and a keybinding to focus the panel', () => {
    const titles = manifest.contributes.menus['view/title'].map((m: { command: string }) => m.command);
    assert.ok(titles.includes('turnstone.newSession'));
    assert.ok(titles.includes('turnstone.stop'));
    assert.ok(manifest.contributes.keybindings.some((k: { command: string; key: string }) => k.command === 'turnstone.focus' && k.key));
  });

  it('contributes every setting of the contract with a type, a default and a description', () => {
    const props = manifest.contributes.configuration.properties;
    assert.deepEqual(Object.keys(props).sort(), SETTINGS.map((s) => `turnstone.${s}`).sort());
    for (const [key, p] of Object.entries<Record<string, unknown>>(props)) {
      assert.ok(p.type, `${key} has a type`);
      assert.ok('default' in p, `${key} has a default`);
      assert.ok(english(p.description) || english(p.markdownDescription), `${key} has a description`);
      for (const d of [p.description, p.markdownDescription]) if (d !== undefined) assert.doesNotMatch(english(d) ?? '', /^%.*%$/, `${key}: ${String(d)} is in package.nls.json`);
    }
    assert.deepEqual(props['turnstone.permissionMode'].enum, ['plan', 'ask', 'acceptEdits', 'bypassPermissions']);
    assert.deepEqual(props['turnstone.provider'].enum, [...PROVIDER_NAMES]);
    assert.equal(props['turnstone.autoCompactInputTokens'].default, 100000);
  });

  it('defaults to a current model from the SDK that is not deprecated', () => {
    const model: string = manifest.contributes.configuration.properties['turnstone.model'].default;
    const sdkTypes = readFileSync(path.join(root, 'node_modules/@anthropic-ai/sdk/resources/messages/messages.d.ts'), 'utf8');
    assert.ok(sdkTypes.includes(`'${model}'`), `${model} is in the SDK's model list`);
    const deprecated = readFileSync(path.join(root, 'node_modules/@anthropic-ai/sdk/internal/data/deprecated-models.js'), 'utf8');
    assert.ok(!deprecated.includes(`'${model}'`), `${model} is not deprecated`);
  });

  it('packages only what the product loads: bundles, assets and docs, never sources, tests, maps or node_modules', function () {
    this.timeout(60_000);
    // vsce's own view of the VSIX, from .vscodeignore (the files need not be built).
    const listed = execFileSync(process.execPath, [path.join(root, 'node_modules/@vscode/vsce/vsce'), 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const allowed = [/^(LICENSE|README\.md|package\.json)$/, /^dist\/[\w.-]+\.(js|css|wasm)$/, /^dist\/codicons\/codicon\.(css|ttf)$/, /^docs\/[\w.-]+\.md$/, /^media\/[\w.-]+\.svg$/, /^package\.nls(\.[\w-]+)?\.json$/, /^l10n\/bundle\.l10n\.[\w-]+\.json$/];
    for (const file of listed) assert.ok(allowed.some((re) => re.test(file)), `${file} should not be in the VSIX`);
    for (const needed of [manifest.main.replace(/^\.\//, ''), 'dist/core.js', 'dist/panel-support.js', 'dist/webview.js', 'dist/webview.css', 'media/turnstone.svg', 'package.nls.json', 'package.nls.zh-cn.json', 'l10n/bundle.l10n.zh-cn.json']) {
      assert.ok(listed.includes(needed), `${needed} is missing from the VSIX`);
    }
  });
});
