// Issue 28: web_fetch through the real extension host: a scripted model asks
// for a page of a local HTTP server, the approval names the URL (kind fetch)
// and, once allowed, the page reaches the model as Markdown. The setting
// turnstone.webFetch.allowPrivateNetwork is on for the local server, and off
// in the second test, where the same fetch is refused.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TurnstoneApi } from '../../src/extension';
import { MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { startPageServer, type PageServer } from '../fixtures/web/server';

const config = () => vscode.workspace.getConfiguration('turnstone');

function waitFor<T>(event: vscode.Event<T>, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out waiting for an event')), timeoutMs);
    const sub = event((value) => {
      clearTimeout(timer);
      sub.dispose();
      resolve(value);
    });
  });
}

/** The tool_result the model got back in the request after the tool use. */
function toolResult(server: MockAnthropicServer, id: string): { content: unknown; is_error?: boolean } {
  for (const body of server.bodies) {
    for (const m of body.messages as { role: string; content: unknown }[]) {
      if (!Array.isArray(m.content)) continue;
      const r = (m.content as { type: string; tool_use_id?: string }[]).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
      if (r) return r as never;
    }
  }
  throw new Error(`no tool_result for ${id}`);
}
const text = (content: unknown) => (typeof content === 'string' ? content : (content as { type: string; text?: string }[]).map((b) => b.text ?? '').join(''));

describe('web_fetch in the real extension host (issue 28)', function () {
  this.timeout(90_000);
  let server: MockAnthropicServer;
  let pages: PageServer;
  let turnstone: TurnstoneApi;

  before(async () => {
    server = await MockAnthropicServer.start();
    pages = await startPageServer();
    turnstone = await vscode.extensions.getExtension<TurnstoneApi>('turnstone.turnstone')!.activate();
    await config().update('baseUrl', server.url, vscode.ConfigurationTarget.Global);
  });
  after(async () => {
    for (const key of ['baseUrl', 'permissionMode', 'webFetch.allowPrivateNetwork']) await config().update(key, undefined, vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(true);
    await server.close();
    await pages.close();
  });
  beforeEach(async () => {
    server.reset();
    await vscode.commands.executeCommand('turnstone.newSession');
  });

  it('28.fetch: ask mode asks (kind fetch, the URL shown); once allowed, the docs page reaches the model as Markdown and the card shows the URL', async () => {
    await config().update('permissionMode', 'ask', vscode.ConfigurationTarget.Global);
    await config().update('webFetch.allowPrivateNetwork', true, vscode.ConfigurationTarget.Global);
    turnstone.setDialogsEnabled(false);
    const url = pages.url('/docs');
    server.enqueue(toolUseReply([{ id: 'tu_fetch', name: 'web_fetch', input: { url } }]), textReply('Read the stream docs.'));
    const requested = waitFor(turnstone.onDidRequestPermission);
    const turn = turnstone.sendPrompt('read the stream docs');
    const id = await requested;
    const pending = turnstone.pendingPermissions().find((p) => p.id === id)!;
    assert.deepEqual({ toolName: pending.toolName, need: pending.need, subject: pending.subject }, { toolName: 'web_fetch', need: 'fetch', subject: url });
    assert.deepEqual(pages.hits, [], 'nothing is fetched before the decision');
    assert.equal(turnstone.decide(id, { kind: 'allow', scope: 'once' }), true);
    const summary = await turn;
    assert.equal(summary.outcome, 'completed');
    const result = toolResult(server, 'tu_fetch');
    assert.notEqual(result.is_error, true, text(result.content));
    assert.match(text(result.content), /Title: Streams \| Node\.js v20 Documentation\n\n# Stream/);
    assert.ok(!text(result.content).includes('Trademark Policy'), 'the footer is left out');
    assert.match(String(pages.headers.get('/docs')?.['user-agent']), /^Turnstone\/\d+\.\d+\.\d+ /);
    const card = turnstone.panelSnapshot().items.find((i) => i.kind === 'tool') as { view?: unknown } | undefined;
    assert.deepEqual(card?.view, { kind: 'fetch', url });
  });

  it('28.fetch: with allowPrivateNetwork off (the default) the local server is refused, even in bypassPermissions', async () => {
    await config().update('permissionMode', 'bypassPermissions', vscode.ConfigurationTarget.Global);
    await config().update('webFetch.allowPrivateNetwork', undefined, vscode.ConfigurationTarget.Global);
    const before = pages.hits.length;
    server.enqueue(toolUseReply([{ id: 'tu_local', name: 'web_fetch', input: { url: pages.url('/text') } }]), textReply('Could not.'));
    const summary = await turnstone.sendPrompt('read the local page');
    assert.equal(summary.outcome, 'completed');
    const result = toolResult(server, 'tu_local');
    assert.equal(result.is_error, true);
    assert.match(text(result.content), /Refused to connect to 127\.0\.0\.1: it is a loopback address/);
    assert.equal(pages.hits.length, before);
  });
});
