import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../src/host/contract';

const EXTENSION_ID = 'turnstone.turnstone';

/** Which of Turnstone's bundles this extension host has loaded (its require cache). */
function loadedBundles(): string[] {
  const dist = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist');
  return ['extension.js', 'panel-support.js', 'core.js'].filter((file) => require.cache[path.join(dist, file)] !== undefined);
}

describe('activation in the real extension host', () => {
  it('activates and exposes its API', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is loaded in development mode`);
    const api = await ext.activate();
    assert.equal(ext.isActive, true);
    assert.equal(api.chatViewId, 'turnstone.chat');
    // Nothing has shown the panel or run a turn yet: activation loaded the thin bundle only.
    assert.deepEqual(loadedBundles(), ['extension.js'], 'activation loads neither the panel\'s schemas nor the core');
  });

  it('registers every command of the contract', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = COMMANDS.filter((c) => !registered.has(c));
    assert.deepEqual(missing, []);
  });

  it('turnstone.focus shows the chat view', async () => {
    await vscode.commands.executeCommand('turnstone.focus');
    // The view resolves asynchronously; the context key flips once the webview view is visible.
    const deadline = Date.now() + 20_000;
    let visible = false;
    while (Date.now() < deadline && !visible) {
      const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
      visible = (ext.exports as { isChatVisible?: () => boolean }).isChatVisible?.() ?? false;
      if (!visible) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(visible, true, 'the turnstone.chat webview view became visible');
    // The panel's schemas come with the panel (loaded on the tick after it resolves); the core waits for a turn.
    while (Date.now() < deadline && !loadedBundles().includes('panel-support.js')) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(loadedBundles(), ['extension.js', 'panel-support.js']);
  });

  it('runs in the VS Code version we target', () => {
    assert.match(vscode.version, /^1\.1\d\d\./);
  });
});
