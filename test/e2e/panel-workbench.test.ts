// The chat panel inside the real workbench, fed by the real extension host and
// runtime from the local mock API: rendering, Stop, steering, re-showing the
// view, and hostile model output.
import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { type MockReply, type SseFrame, streamReply, textReply } from '../fixtures/mock-anthropic';
import { CANARY, XSS_CORPUS } from '../fixtures/xss-corpus';
import { recordScenario } from '../reliability/report';
import { chatFrame, chatGone, runCommand, screenshot, sendFromPanel as send, useChatWorkbench } from './workbench';


/** Waits until the panel shows no running turn (the Stop button is gone). */
async function idle(frame: Frame): Promise<void> {
  await frame.locator('button.stop').waitFor({ state: 'hidden', timeout: 60_000 });
}

/** The same reply with its deltas trickling in, so a test can act while it streams. */
function slow(reply: MockReply, delayMs: number): MockReply {
  if (reply.kind !== 'sse' || !reply.frames) return reply;
  return { ...reply, frames: reply.frames.map((f: SseFrame) => (f.event === 'content_block_delta' ? { ...f, delayMs } : f)) };
}

describe('e2e: the chat panel in the real workbench', function () {
  this.timeout(180_000);
  const dialogs: string[] = [];
  const chat = useChatWorkbench({
    prepare: (wb) => {
      wb.page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
    },
  });
  beforeEach(() => chat.server.reset());

  it('renders a streamed reply with thinking, two tool cards and a highlighted code block', async () => {
    chat.server.enqueue(
      streamReply([
        { type: 'thinking', thinking: 'The user wants to know what hello.ts exports. I will read it and look for tests.', signature: 'sig-1', chunks: 4 },
        { type: 'text', text: 'Let me look at the file and its tests.' },
        { type: 'tool_use', id: 'tu_r', name: 'read_file', input: { path: 'src/hello.ts' } },
        { type: 'tool_use', id: 'tu_g', name: 'glob_search', input: { pattern: '**/*.test.ts' } },
      ]),
      textReply('`greeting` builds a salutation:\n\n```ts\nexport const greeting = (name: string) => `Hello, ${name}!`;\n```\n\nThere are no tests yet.', { usage: { input_tokens: 900, output_tokens: 60, cache_read_input_tokens: 700 } }),
    );
    const frame = await send(chat.wb.page, 'What does hello.ts export?');
    await idle(frame);
    await frame.locator('article.item.assistant', { hasText: 'no tests yet' }).waitFor();
    assert.equal(await frame.locator('article.item.thinking').count(), 1);
    assert.match(await frame.locator('article.item.thinking').innerText(), /Thought for/);
    const tools = frame.locator('article.item.tool');
    assert.equal(await tools.count(), 2);
    assert.match(await tools.nth(0).innerText(), /src\/hello\.ts/);
    assert.match(await tools.nth(1).innerText(), /\*\*\/\*\.test\.ts/);
    const code = frame.locator('article.item.assistant pre code');
    assert.match(await code.innerText(), /export const greeting/);
    // Coloured by the worker under the workbench's own webview policy too: the on-demand bundle (this thread's
    // fallback) was never loaded for TypeScript.
    await code.locator('.hljs-keyword').first().waitFor();
    assert.equal(await frame.evaluate(() => typeof (window as unknown as { __turnstoneTokenise?: unknown }).__turnstoneTokenise), 'undefined', 'TypeScript was tokenised in the worker');
    // The thinking block went back to the API unchanged, signature included.
    const second = chat.server.bodies[1] as { messages: Array<{ role: string; content: Array<{ type: string; signature?: string }> }> };
    assert.ok(second.messages.some((m) => m.content.some((b) => b.type === 'thinking' && b.signature === 'sig-1')));
    // Light only: the offline code-server does not apply its built-in colour themes (the setting and the
    // picker both leave the default); the panel's light/dark/high-contrast looks are shot in test/e2e/panel.
    await screenshot(chat.wb.page, 'workbench-panel.png');
  });

  it('Stop interrupts a streaming reply and the panel goes idle', async () => {
    chat.server.enqueue(slow(streamReply([{ type: 'text', text: 'word '.repeat(200), chunks: 100 }]), 150));
    const frame = await send(chat.wb.page, 'Write a long essay.');
    await frame.locator('article.item.assistant', { hasText: 'word' }).last().waitFor({ timeout: 60_000 });
    await frame.locator('button.stop').click();
    await idle(frame);
    assert.equal(chat.server.requests.length, 1, 'no further request after Stop');
  });

  it('text sent while a turn runs steers it: it reaches the model in the next request', async () => {
    chat.server.enqueue(
      slow(streamReply([{ type: 'text', text: 'Reading the README first, slowly. '.repeat(4), chunks: 20 }, { type: 'tool_use', id: 'tu_s', name: 'read_file', input: { path: 'README.md' } }]), 150),
      textReply('Noted: one sentence it is.'),
    );
    const frame = await send(chat.wb.page, 'Summarise the README.');
    await frame.locator('button.stop').waitFor({ state: 'visible' });
    const input = frame.locator('textarea.input');
    await input.fill('keep it to one sentence');
    await input.press('Enter');
    await idle(frame);
    const second = JSON.stringify(chat.server.bodies[1] ?? {});
    assert.ok(second.includes('keep it to one sentence'), 'the steering text is in the next request');
  });

  it('re-showing the view restores the transcript', async () => {
    const frameBefore = await chatFrame(chat.wb.page);
    const before = await frameBefore.locator('article.item').count();
    assert.ok(before > 0);
    await runCommand(chat.wb.page, 'View: Show Explorer');
    // The view is really hidden (its webview disposed) before it is shown again: otherwise nothing is restored.
    await chatGone(chat.wb.page);
    await runCommand(chat.wb.page, 'Turnstone: Focus Chat');
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('article.item.assistant', { hasText: 'no tests yet' }).waitFor({ timeout: 30_000 });
    assert.ok((await frame.locator('article.item').count()) > 0);
  });

  it('hostile model output (the XSS corpus) renders inert', async () => {
    chat.server.enqueue(textReply(XSS_CORPUS.join('\n\n'), { usage: { output_tokens: 500 } }));
    const frame = await send(chat.wb.page, 'Show me some HTML.');
    await idle(frame);
    await chat.wb.page.waitForTimeout(1000);
    const report = await frame.evaluate((canary) => {
      const all = [...document.querySelectorAll('*')];
      return {
        canary: (window as unknown as Record<string, unknown>)[canary],
        handlers: all.filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
        jsLinks: [...document.querySelectorAll('a[href]')].filter((a) => /^\s*(javascript|data|vbscript):/i.test(a.getAttribute('href') ?? '')).length,
        scripts: [...document.querySelectorAll('article script, article iframe, article object, article embed, article form, article button.perm-allow')].length,
        href: location.href,
      };
    }, CANARY);
    const workbenchCanary = await chat.wb.page.evaluate((c) => (window as unknown as Record<string, unknown>)[c], CANARY);
    recordScenario({
      id: 'A-WEB-XSS-03',
      area: 'webview',
      scenario: `the XSS corpus (${XSS_CORPUS.length} payloads) as one model reply from the mock API, rendered by the panel in the real workbench`,
      expected: 'nothing runs in the webview or reaches the workbench; no handlers, script-like elements or javascript:/data: links',
      observed: `${XSS_CORPUS.length} payloads; canary ${report.canary === undefined ? 'unset' : 'SET'} in the webview, ${workbenchCanary === undefined ? 'unset' : 'SET'} in the workbench; ${report.handlers} on* handlers, ${report.jsLinks} js/data links, ${report.scripts} script-like elements, ${dialogs.length} dialogs`,
      passed: report.canary === undefined && workbenchCanary === undefined && report.handlers === 0 && report.jsLinks === 0 && report.scripts === 0 && dialogs.length === 0,
    });
    assert.equal(report.canary, undefined, 'a payload ran');
    assert.equal(report.handlers, 0);
    assert.equal(report.jsLinks, 0);
    assert.equal(report.scripts, 0);
    assert.deepEqual(dialogs, []);
    assert.ok(await chat.wb.page.evaluate((c) => (window as unknown as Record<string, unknown>)[c] === undefined, CANARY), 'nothing reached the workbench');
  });
});
