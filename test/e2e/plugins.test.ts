// Issue 46, plugins in the real workbench: the fixture marketplace (test/fixtures/plugins) added as a local git
// repository with "Turnstone: Add Plugin Marketplace…", the toolkit plugin installed from "Manage Plugins" after a
// modal that names what it runs; then in the panel `/toolkit:review` expands, its PreToolUse hook runs on
// read_file (a marker file), its MCP server's tool answers, its skill loads and its agent runs as a subagent.
// Removing it from "Manage Plugins" deletes its copy and turns it off: the next turn has none of it.
// Real workbench, real git, real MCP server (the everything server from node_modules), mock model API.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/code-server';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { EVERYTHING_BIN, waitFor } from '../fixtures/mcp-servers';
import { chatFrame, quickInputTitled, runCommand, screenshot, untilDone, useChatWorkbench } from './workbench';

type Body = { system: unknown; tools: { name: string; description?: string }[]; messages: { role: string; content: unknown }[] };

describe('e2e: plugins from a marketplace in the real workbench (issue 46)', function () {
  this.timeout(300_000);
  const repo = mkdtempSync(path.join(os.tmpdir(), 'turnstone-e2e-marketplace-'));
  const chat = useChatWorkbench({
    workbench: { env: { TURNSTONE_TEST_EVERYTHING_BIN: EVERYTHING_BIN } },
    prepare: (wb) => {
      writeFileSync(path.join(wb.server.workspace, 'a.txt'), 'hello\n');
      cpSync(path.join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'marketplace'), repo, { recursive: true });
      const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } });
      git('init', '-q');
      git('add', '.');
      git('commit', '-qm', 'marketplace');
    },
  });
  after(() => rmSync(repo, { recursive: true, force: true }));

  const quickInput = () => chat.wb.page.locator('.quick-input-widget input');
  const dialog = () => chat.wb.page.locator('.monaco-dialog-box');
  const pickTitled = (title: string) => quickInputTitled(chat.wb.page, title);
  const installed = () => path.join(chat.wb.server.userDataDir, 'User', 'globalStorage', 'turnstone.turnstone', 'plugins', 'installed', 'turnstone-fixtures', 'toolkit');
  // Read while the workbench may be writing it: a half-written file reads as nothing yet (the waits try again).
  const userSettings = (): Record<string, unknown> => {
    try {
      return JSON.parse(readFileSync(path.join(chat.wb.server.userDataDir, 'User', 'settings.json'), 'utf8')) as Record<string, unknown>;
    } catch {
      return {};
    }
  };

  async function pick(text: string): Promise<void> {
    const input = quickInput();
    await input.waitFor({ state: 'visible', timeout: 30_000 });
    await input.fill(text);
    await chat.wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first().waitFor({ state: 'visible', timeout: 30_000 });
    await input.press('Enter');
  }

  it('adds the marketplace from a git repository, installs the plugin after naming what it runs, and its command, hook, MCP server, skill and agent each work', async () => {
    const page = chat.wb.page;
    await runCommand(page, 'Turnstone: Add Plugin Marketplace', 60_000, pickTitled('Add Plugin Marketplace'));
    await pick('A git repository');
    await quickInput().waitFor({ state: 'visible' });
    await quickInput().fill(repo);
    await quickInput().press('Enter');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'marketplace "turnstone-fixtures" added (2 plugins)' });
    await toast.waitFor({ state: 'visible', timeout: 60_000 });
    // The progress toast stays at least 800 ms beside it, and when it goes the stack moves under the pointer: a
    // click then can miss the button (CI once saw no picker within 30 s of the click). A user clicks again.
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'adding the plugin marketplace' }).waitFor({ state: 'detached', timeout: 60_000 });
    await untilDone(60_000, async (left) => {
      const button = toast.getByRole('button', { name: 'Manage Plugins' });
      if (await button.isVisible()) await button.click({ timeout: left() });
      await pickTitled('Turnstone Plugins').waitFor({ state: 'visible', timeout: left(30_000) });
    });
    await pick('toolkit');
    await dialog().waitFor({ state: 'visible', timeout: 60_000 });
    const question = await dialog().innerText();
    assert.match(question, /Install the plugin "toolkit"\?/);
    assert.match(question, /It brings: 1 command, 1 agent, 1 skill, 1 hook, 1 MCP server\./);
    assert.match(question, /A plugin is code\. It will run these commands on your computer:/);
    assert.match(question, /hook PreToolUse \(read_file\): sh ".*\/hooks\/mark\.sh"/);
    assert.match(question, /MCP server toolkit-everything: node \$\{TURNSTONE_TEST_EVERYTHING_BIN\} stdio/);
    await screenshot(page, 'plugins-install-question.png');
    await dialog().getByRole('button', { name: 'Install and Enable' }).click();
    await waitFor(() => existsSync(path.join(installed(), 'commands', 'review.md')), 'the plugin copied under the global storage', 60_000);
    await waitFor(() => JSON.stringify(userSettings()['turnstone.plugins.enabled']) === '["toolkit@turnstone-fixtures"]', 'the plugin enabled in the user settings', 30_000);
    // The settings file is written before the extension host has the new value (a prompt sent in between went out
    // plain, once): the user is told when the plugin applies, and sends after that.
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'plugin "toolkit" installed and enabled' }).waitFor({ state: 'visible', timeout: 30_000 });

    chat.server.enqueue(
      toolUseReply([{ id: 'tu_read', name: 'read_file', input: { path: 'a.txt' } }]),
      toolUseReply([{ id: 'tu_echo', name: 'mcp__toolkit-everything__echo', input: { message: 'from the plugin' } }]),
      toolUseReply([{ id: 'tu_skill', name: 'skill', input: { name: 'toolkit:changelog' } }]),
      toolUseReply([{ id: 'tu_agent', name: 'agent', input: { description: 'audit', prompt: 'Audit a.txt', agent: 'toolkit:auditor' } }]),
      textReply('No risky commands.'),
      textReply('Reviewed with the toolkit.'),
    );
    const frame = await chatFrame(page);
    const input = frame.locator('textarea.input');
    await input.click();
    await input.fill('/toolkit:review a.txt');
    await input.press('Enter');
    // The MCP tool asks (ask mode): allowed in the modal.
    await dialog().waitFor({ state: 'visible', timeout: 90_000 });
    assert.match(await dialog().innerText(), /toolkit-everything/);
    await dialog().getByRole('button', { name: 'Allow', exact: true }).click();
    await frame.locator('article.item.assistant', { hasText: 'Reviewed with the toolkit.' }).waitFor({ timeout: 120_000 });
    await screenshot(page, 'plugins-turn.png');

    const bodies = chat.server.bodies as Body[];
    // The turn's requests carry tools; a session-title request beside them does not.
    const first = bodies.find((b) => Array.isArray(b.tools) && b.tools.length > 0)!;
    assert.match(JSON.stringify(first.messages.at(-1)!.content), /TOOLKIT-REVIEW: review a\.txt against the house rules in /);
    assert.match(JSON.stringify(first.system), /toolkit:changelog: Write a changelog entry in the toolkit's format/);
    assert.ok(first.tools.some((t) => t.name === 'mcp__toolkit-everything__echo'), 'the plugin\'s MCP tool is offered');
    assert.match(first.tools.find((t) => t.name === 'agent')!.description!, /toolkit:auditor/);
    assert.equal(readFileSync(path.join(chat.wb.server.workspace, 'plugin-hook-ran.txt'), 'utf8'), 'PreToolUse read_file\n');
    const all = JSON.stringify(bodies);
    assert.ok(all.includes('Echo: from the plugin'), 'the MCP tool answered');
    assert.ok(all.includes('TOOLKIT-CHANGELOG-BODY'), 'the skill loaded');
    assert.ok(bodies.some((b) => JSON.stringify(b.system).includes('TOOLKIT-AUDITOR-PROMPT')), 'the subagent ran with the plugin agent\'s prompt');
  });

  it('removing it from Manage Plugins deletes its copy and turns it off: the next turn has none of it', async () => {
    const page = chat.wb.page;
    await runCommand(page, 'Turnstone: Manage Plugins', 60_000, pickTitled('Turnstone Plugins'));
    await pick('toolkit');
    await pick('Remove');
    await waitFor(() => !existsSync(installed()), 'the installed copy removed', 30_000);
    await waitFor(() => JSON.stringify(userSettings()['turnstone.plugins.enabled']) === '[]', 'the plugin no longer enabled', 30_000);
    const before = chat.server.bodies.length;
    chat.server.enqueue(textReply('Plain text.'));
    const frame = await chatFrame(page);
    const input = frame.locator('textarea.input');
    await input.fill('/toolkit:review a.txt');
    await input.press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'Plain text.' }).waitFor({ timeout: 90_000 });
    const body = (chat.server.bodies.slice(before) as Body[]).find((b) => Array.isArray(b.tools) && b.tools.length > 0)!;
    assert.match(JSON.stringify(body.messages.at(-1)!.content), /\/toolkit:review a\.txt/);
    assert.ok(!body.tools.some((t) => t.name.startsWith('mcp__toolkit')), 'no MCP tool of the plugin');
    assert.ok(!JSON.stringify(body.system).includes('toolkit:changelog'));
  });
});

describe('e2e: an enabled plugin in an untrusted workspace (issue 46)', function () {
  this.timeout(300_000);
  const chat = useChatWorkbench({
    workbench: { workspaceTrust: true, env: { TURNSTONE_TEST_EVERYTHING_BIN: EVERYTHING_BIN }, userSettings: { 'turnstone.plugins.enabled': ['toolkit@turnstone-fixtures'] } },
    prepare: (wb) => {
      writeFileSync(path.join(wb.server.workspace, 'a.txt'), 'hello\n');
      // Installed and enabled as "Manage Plugins" leaves it: the copy and the registry under the global storage.
      const marketplace = path.join(REPO_ROOT, 'test', 'fixtures', 'plugins', 'marketplace');
      const plugins = path.join(wb.server.userDataDir, 'User', 'globalStorage', 'turnstone.turnstone', 'plugins');
      const dir = path.join(plugins, 'installed', 'turnstone-fixtures', 'toolkit');
      cpSync(path.join(marketplace, 'plugins', 'toolkit'), dir, { recursive: true });
      const registry = {
        version: 1,
        marketplaces: [{ name: 'turnstone-fixtures', kind: 'folder', source: marketplace, dir: marketplace }],
        installed: [{ id: 'toolkit@turnstone-fixtures', name: 'toolkit', marketplace: 'turnstone-fixtures', version: '1.2.0', dir, runs: [] }],
      };
      writeFileSync(path.join(plugins, 'registry.json'), JSON.stringify(registry));
    },
  });

  it('runs none of it: the command is plain text, no MCP tool, no skill or agent of it, no hook', async () => {
    chat.server.enqueue(toolUseReply([{ id: 'tu_read', name: 'read_file', input: { path: 'a.txt' } }]), textReply('Untrusted reply.'));
    const frame = await chatFrame(chat.wb.page);
    const input = frame.locator('textarea.input');
    await input.click();
    await input.fill('/toolkit:review a.txt');
    await input.press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'Untrusted reply.' }).waitFor({ timeout: 120_000 });
    const first = (chat.server.bodies as Body[]).find((b) => Array.isArray(b.tools) && b.tools.length > 0)!;
    assert.match(JSON.stringify(first.messages.at(-1)!.content), /\/toolkit:review a\.txt/);
    assert.ok(!first.tools.some((t) => t.name.startsWith('mcp__toolkit')), 'no MCP tool of the plugin');
    assert.ok(!JSON.stringify(first.system).includes('toolkit:changelog'), 'no skill of the plugin');
    assert.ok(!JSON.stringify(first.tools).includes('toolkit:auditor'), 'no agent of the plugin');
    assert.equal(existsSync(path.join(chat.wb.server.workspace, 'plugin-hook-ran.txt')), false, 'the hook did not run');
  });
});
