// Context in, as a user meets it in the real workbench: AGENTS.md reaches the
// request and the header names it; `@` with the keyboard attaches a file that
// is not open; `/` with the keyboard runs a custom command. Checked at the
// mock API.
import * as assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { textReply } from '../fixtures/mock-anthropic';
import { chatFrame, screenshot, useChatWorkbench } from './workbench';

const activeOption = (frame: Frame) =>
  frame.evaluate(() => {
    const id = document.querySelector('textarea.input')!.getAttribute('aria-activedescendant');
    return id ? document.getElementById(id)?.querySelector('.picker-label')?.textContent ?? null : null;
  });

describe('e2e: instructions, @ and / in the real workbench', function () {
  this.timeout(180_000);
  const chat = useChatWorkbench({
    prepare: (wb) => {
      const put = (rel: string, text: string) => {
        const file = path.join(wb.server.workspace, rel);
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, text);
      };
      put('AGENTS.md', 'E2E instruction: always mention the word turnstone-e2e.');
      put('docs/guides/deploy-checklist.md', '1. Build\n2. Ship the unopened file\n');
      put('.turnstone/commands/summarize.md', '---\ndescription: Summarise a file\n---\nSummarise $ARGUMENTS in three bullet points.');
    },
  });

  it('the header names AGENTS.md, and its text is in the request after Turnstone\'s prompt', async () => {
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('button.instructions', { hasText: 'AGENTS.md' }).waitFor({ state: 'visible', timeout: 30_000 });
    chat.server.enqueue(textReply('Hello from turnstone-e2e.\n\n```ts\nconst answer: number = 42;\n```\n\n```haskell\nmain = putStrLn "hi"\n```'));
    const input = frame.locator('textarea.input');
    await input.click();
    await chat.wb.page.keyboard.type('hi');
    await chat.wb.page.keyboard.press('Enter');
    await frame.locator('article.item.assistant', { hasText: 'turnstone-e2e' }).waitFor({ timeout: 60_000 });
    // Highlighting in the real webview: a bundled grammar at once, a rare one loaded beside the bundle under the real CSP.
    const blocks = frame.locator('article.item.assistant .code-block');
    await blocks.nth(0).locator('.hljs-keyword').first().waitFor({ timeout: 30_000 });
    await blocks.nth(1).locator('.hljs-string').waitFor({ timeout: 30_000 });
    await screenshot(chat.wb.page, 'workbench-code-highlight.png');
    const system = JSON.stringify(chat.server.bodies[0]?.system);
    assert.ok(system.indexOf('You are Turnstone') < system.indexOf('Instructions from AGENTS.md:\\nE2E instruction: always mention the word turnstone-e2e.'), system);
  });

  it('@ with the keyboard attaches a file that is not open; the model gets it as an attachment block', async () => {
    chat.server.reset();
    const frame = await chatFrame(chat.wb.page);
    const input = frame.locator('textarea.input');
    await input.click();
    await chat.wb.page.keyboard.type('check @deploych');
    const listbox = frame.getByRole('listbox', { name: 'Attach context' });
    await listbox.getByRole('option', { name: /deploy-checklist\.md/ }).first().waitFor({ timeout: 30_000 });
    await screenshot(chat.wb.page, 'workbench-mention-picker.png');
    assert.equal(await activeOption(frame), 'deploy-checklist.md');
    await chat.wb.page.keyboard.press('Enter');
    const chip = frame.locator('.composer .attachments .chip', { hasText: 'deploy-checklist.md' });
    await chip.locator('.chip-tokens', { hasText: /^~\d/ }).waitFor({ timeout: 30_000 });
    await chat.wb.page.keyboard.type('please');
    chat.server.enqueue(textReply('Checked.'));
    await chat.wb.page.keyboard.press('Enter');
    await chat.server.waitForRequests(1, 30_000);
    const messages = chat.server.bodies[0]!.messages as { role: string; content: { type: string; text?: string }[] | string }[];
    const last = messages[messages.length - 1]!;
    const text = typeof last.content === 'string' ? last.content : last.content.map((b) => b.text ?? '').join('');
    assert.match(text, /<attachment kind="file" label="deploy-checklist\.md">\nFile: docs\/guides\/deploy-checklist\.md\n```\n1\. Build\n2\. Ship the unopened file/);
    assert.match(text, /<user_message>\ncheck please\n<\/user_message>$/);
    // 25.10: the sent message's chip keeps the file's icon.
    await frame.locator('article.item.user .chip', { hasText: 'deploy-checklist.md' }).locator('.codicon-file').waitFor({ timeout: 30_000 });
  });

  it('/ with the keyboard picks a custom command; its text with $ARGUMENTS is what the model gets', async () => {
    chat.server.reset();
    const frame = await chatFrame(chat.wb.page);
    await frame.locator('textarea.input').click();
    await chat.wb.page.keyboard.type('/summ');
    const menu = frame.getByRole('listbox', { name: 'Slash commands' });
    await menu.getByRole('option', { name: /\/summarize/ }).waitFor({ timeout: 30_000 });
    assert.equal(await activeOption(frame), '/summarize');
    await chat.wb.page.keyboard.press('Tab');
    await chat.wb.page.keyboard.type('README.md');
    chat.server.enqueue(textReply('Three bullets.'));
    await chat.wb.page.keyboard.press('Enter');
    await chat.server.waitForRequests(1, 30_000);
    const body = JSON.stringify(chat.server.bodies[0]!.messages);
    assert.ok(body.includes('Summarise README.md in three bullet points.'), body);
    // 25.10: the conversation shows the command as typed, not what it expanded to.
    const bubble = frame.locator('article.item.user .bubble').last();
    await bubble.waitFor();
    assert.equal((await bubble.innerText()).trim(), '/summarize README.md');
    assert.equal(await frame.locator('article.item.user', { hasText: 'three bullet points' }).count(), 0);
    await screenshot(chat.wb.page, 'workbench-slash-command-as-typed.png');
  });
});
