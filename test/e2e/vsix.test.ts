// What users install is what is tested: the VSIX that `npm run package` builds is
// installed into a fresh VS Code (no development path) and runs one turn with a
// tool use through the panel. `npm test` packages it just before this part.
import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { REPO_ROOT } from '../support/code-server';
import { chatFrame, openWorkbench, runCommand, screenshot, type Workbench } from './workbench';

const VSIX = path.join(REPO_ROOT, 'turnstone.vsix');

describe('e2e: the packaged VSIX, installed as a user would', function () {
  this.timeout(240_000);
  let server: MockAnthropicServer;
  let wb: Workbench;

  before(async () => {
    assert.ok(existsSync(VSIX), `${VSIX} is missing: run \`npm run package\` first (npm test does)`);
    console.log(`      turnstone.vsix: ${(statSync(VSIX).size / 1024).toFixed(0)} kB`);
    server = await MockAnthropicServer.start();
    wb = await openWorkbench({ vsix: VSIX, env: { ANTHROPIC_API_KEY: 'sk-ant-vsix-key', ANTHROPIC_BASE_URL: server.url } });
  });
  after(async () => {
    await wb?.close();
    await server?.close();
  });

  it('is installed in the extensions folder and answers a turn with a tool use through the panel', async () => {
    const installed = readdirSync(wb.server.extensionsDir).filter((d) => d.startsWith('turnstone.turnstone-'));
    assert.equal(installed.length, 1, `installed extensions: ${readdirSync(wb.server.extensionsDir).join(', ')}`);

    server.enqueue(toolUseReply([{ id: 'tu_vsix', name: 'read_file', input: { path: 'src/hello.ts' } }]));
    server.enqueue(textReply('The packaged extension read the file.'));
    await runCommand(wb.page, 'Turnstone: Focus Chat');
    const frame = await chatFrame(wb.page);
    const input = frame.locator('textarea').first();
    await input.click();
    await input.fill('What does src/hello.ts export?');
    await input.press('Enter');
    await frame.getByText('The packaged extension read the file.', { exact: true }).waitFor({ state: 'visible', timeout: 90_000 });

    assert.equal(server.bodies.length, 2);
    const toolTurn = JSON.stringify(server.bodies[1]!.messages);
    assert.match(toolTurn, /tool_result/);
    assert.match(toolTurn, /tu_vsix/);
    assert.match(toolTurn, /Hello, \$\{name\}/, 'the file content reached the model');
    await screenshot(wb.page, 'vsix-installed-turn.png');
  });
});
