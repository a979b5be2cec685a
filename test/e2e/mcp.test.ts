// MCP as a user meets it in the real workbench: a `.mcp.json` in the folder,
// a prompt in the panel, the modal naming the server, the tool, its description
// and the input, Run, the result in the panel; then "Show MCP Servers" lists the
// server as running with its tools. Real workbench, real server, mock model API.
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/code-server';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { chatFrame, runCommand, screenshot, type Workbench, useChatWorkbench } from './workbench';

const dialog = (wb: Workbench) => wb.page.locator('.monaco-dialog-box');

describe('e2e: MCP tools in the real workbench', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench({
    prepare: (wb) => {
      const bin = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
      writeFileSync(path.join(wb.server.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [bin, 'stdio'] } } }));
    },
  });

  it('a workspace .mcp.json server works unchanged: the modal names server, tool, description and input; Run shows the result', async () => {
    chat.server.enqueue(toolUseReply([{ id: 'tu_echo', name: 'mcp__everything__echo', input: { message: 'hello from the workbench' } }]), textReply('The server echoed it back.'));
    const frame = await chatFrame(chat.wb.page);
    const input = frame.locator('textarea.input');
    await input.click();
    await input.fill('echo something through MCP');
    await input.press('Enter');

    await dialog(chat.wb).waitFor({ state: 'visible', timeout: 60_000 });
    const text = await dialog(chat.wb).innerText();
    assert.match(text, /wants to use the tool echo of the MCP server everything/);
    assert.match(text, /MCP server: everything/);
    assert.match(text, /Echoes back the input string/);
    assert.match(text, /"message": "hello from the workbench"/);
    await screenshot(chat.wb.page, 'mcp-permission-dialog.png');
    await dialog(chat.wb).getByRole('button', { name: 'Run', exact: true }).click();

    await frame.locator('article.item.assistant', { hasText: 'echoed it back' }).waitFor({ timeout: 60_000 });
    const card = frame.locator('article.item.tool').first();
    await card.waitFor();
    assert.match(await card.innerText(), /MCP everything › echo \{"message":"hello from the workbench"\}/);
    const second = JSON.stringify(chat.server.bodies[1]);
    assert.ok(second.includes('Echo: hello from the workbench'), 'the tool result reached the model');
  });

  it('Turnstone: Show MCP Servers lists the server as running with its tools', async () => {
    await runCommand(chat.wb.page, 'Turnstone: Show MCP Servers');
    const row = chat.wb.page.locator('.quick-input-widget .monaco-list-row', { hasText: 'everything' }).first();
    await row.waitFor({ state: 'visible', timeout: 30_000 });
    assert.match(await row.innerText(), /running · \d+ tools/);
    await screenshot(chat.wb.page, 'mcp-show-servers.png');
    await chat.wb.page.keyboard.press('Escape');
  });
});
