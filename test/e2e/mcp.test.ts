// MCP as a user meets it in the real workbench: a `.mcp.json` in the folder,
// a prompt in the panel, the modal naming the server, the tool, its description
// and the input, Allow, the result in the panel; then "Show MCP Servers" lists the
// server as running with its tools. Real workbench, real server, mock model API.
// Issue 25.4: the card shows input and output (text, structured content, images);
// the reason is apart from the server's description; "Always allow" names the
// rule it saves; one wording across dialog and panel (no "Run", no "needs
// command permission" for an MCP tool).
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/code-server';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { chatFrame, runCommand, screenshot, type Workbench, useChatWorkbench } from './workbench';

const dialog = (wb: Workbench) => wb.page.locator('.monaco-dialog-box');
const buttons = async (wb: Workbench) => (await dialog(wb).locator('.dialog-buttons .monaco-button').allInnerTexts()).map((t) => t.trim()).filter(Boolean).sort();

describe('e2e: MCP tools in the real workbench', function () {
  this.timeout(240_000);
  const chat = useChatWorkbench({
    prepare: (wb) => {
      const bin = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
      writeFileSync(path.join(wb.server.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [bin, 'stdio'] } } }));
    },
  });

  it('25.4: the modal names server, tool, description and input in the panel\'s words; the card shows the input and the output', async () => {
    chat.server.enqueue(toolUseReply([{ id: 'tu_echo', name: 'mcp__everything__echo', input: { message: 'hello from the workbench' } }]), textReply('The server echoed it back.'));
    const frame = await chatFrame(chat.wb.page);
    const input = frame.locator('textarea.input');
    await input.click();
    await input.fill('echo something through MCP');
    await input.press('Enter');

    await dialog(chat.wb).waitFor({ state: 'visible', timeout: 60_000 });
    const text = await dialog(chat.wb).innerText();
    assert.match(text, /Turnstone: Use the tool echo of the MCP server everything\?/);
    assert.match(text, /MCP server: everything/);
    assert.match(text, /Echoes back the input string/);
    assert.match(text, /"message": "hello from the workbench"/);
    assert.match(text, /Why Turnstone asks: Ask mode asks before every MCP tool call/);
    assert.doesNotMatch(text, /needs command permission/);
    assert.deepEqual(await buttons(chat.wb), ['Allow', 'Always allow mcp__everything__echo', 'Decide in panel', 'Deny with feedback…'].sort());
    // The panel's card behind the dialog asks in the same words.
    const card = frame.locator('article.item.tool[data-id="tu_echo"]');
    await card.locator('button.perm-allow').waitFor();
    assert.deepEqual((await card.locator('.perm-actions button').allInnerTexts()).map((t) => t.trim()), ['Allow', 'Always allow mcp__everything__echo', 'Deny', 'Deny with feedback…']);
    await screenshot(chat.wb.page, 'mcp-permission-dialog.png');
    await dialog(chat.wb).getByRole('button', { name: 'Allow', exact: true }).click();

    await frame.locator('article.item.assistant', { hasText: 'echoed it back' }).waitFor({ timeout: 60_000 });
    await card.locator('.tool-title', { hasText: /everything\s*›\s*echo/ }).waitFor();
    assert.equal(await card.getAttribute('data-status'), 'done');
    assert.match(await card.locator('pre.mcp-output').innerText(), /Echo: hello from the workbench/);
    await card.locator('.mcp-input > summary').click();
    assert.match(await card.locator('pre.mcp-json').innerText(), /"message": "hello from the workbench"/);
    assert.equal(await card.locator('.perm-state').innerText(), 'Allowed in the dialog');
    const second = JSON.stringify(chat.server.bodies[1]);
    assert.ok(second.includes('Echo: hello from the workbench'), 'the tool result reached the model');
  });

  it('25.4: structured content and images show in their cards; "Always allow <rule>" in the panel saves exactly that rule, and it applies', async () => {
    const tool = 'mcp__everything__get-structured-content';
    chat.server.enqueue(
      toolUseReply([{ id: 'tu_weather', name: tool, input: { location: 'Chicago' } }]),
      toolUseReply([{ id: 'tu_image', name: 'mcp__everything__get-tiny-image', input: {} }]),
      toolUseReply([{ id: 'tu_weather2', name: tool, input: { location: 'New York' } }]),
      textReply('Weather and a picture.'),
    );
    const frame = await chatFrame(chat.wb.page);
    const input = frame.locator('textarea.input');
    await input.fill('weather and a picture');
    await input.press('Enter');

    // The dialog waits; the panel answers.
    await dialog(chat.wb).waitFor({ state: 'visible', timeout: 60_000 });
    await dialog(chat.wb).getByRole('button', { name: 'Decide in panel' }).click();
    await dialog(chat.wb).waitFor({ state: 'hidden' });
    const weather = frame.locator('article.item.tool[data-id="tu_weather"]');
    // The reason and the server's own description are apart (the description folded under its own label).
    assert.match(await weather.locator('.perm-reason').innerText(), /^Why Turnstone asks: Ask mode asks before every MCP tool call/);
    assert.doesNotMatch(await weather.locator('.perm-reason').innerText(), /structured content/i);
    await weather.locator('.perm-description > summary', { hasText: 'Tool description (from the server)' }).waitFor();
    await screenshot(chat.wb.page, 'mcp-panel-approval.png');
    await weather.locator('button.perm-allow-always', { hasText: `Always allow ${tool}` }).click();
    await weather.locator('.perm-state', { hasText: `Always allowed: ${tool} saved to the workspace settings` }).waitFor({ timeout: 30_000 });
    await frame.locator('article.item.tool[data-id="tu_weather"][data-status="done"]').waitFor({ timeout: 60_000 });
    // Structured content: the JSON the server returned, in the card.
    assert.match(await weather.locator('pre.mcp-output').innerText(), /"temperature"/);

    // The image tool asks (another rule); Allow in the dialog. Its card shows the text and the image.
    await dialog(chat.wb).waitFor({ state: 'visible', timeout: 60_000 });
    await dialog(chat.wb).getByRole('button', { name: 'Allow', exact: true }).click();
    const image = frame.locator('article.item.tool[data-id="tu_image"][data-status="done"]');
    await image.waitFor({ timeout: 60_000 });
    assert.match(await image.locator('pre.mcp-output').innerText(), /Here's the image you requested/);
    await image.locator('.tool-images img').first().waitFor();

    // The saved rule applies: the same tool runs again without asking.
    await frame.locator('article.item.assistant', { hasText: 'Weather and a picture.' }).waitFor({ timeout: 60_000 });
    const again = frame.locator('article.item.tool[data-id="tu_weather2"]');
    assert.equal(await again.getAttribute('data-status'), 'done');
    assert.equal(await again.locator('.item.permission').count(), 0, 'no question the second time');
    const settings = JSON.parse(readFileSync(path.join(chat.wb.server.workspace, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(settings['turnstone.permissions.allow'], [tool], 'exactly the rule the button named');
    await screenshot(chat.wb.page, 'mcp-cards.png');
  });

  it('Turnstone: Show MCP Servers lists the server as running with its tools', async () => {
    const row = chat.wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'everything' }).first();
    await runCommand(chat.wb.page, 'Turnstone: Show MCP Servers', 60_000, row);
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await row.innerText(), /running · \d+ tools/);
    await screenshot(chat.wb.page, 'mcp-show-servers.png');
    await chat.wb.page.keyboard.press('Escape');
  });
});
