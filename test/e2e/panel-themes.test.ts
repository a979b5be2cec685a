// Issue 25.3 and the theme sweep: the panel holding every card type, in the real
// workbench, in each of the four theme kinds (light, dark, high contrast light
// and dark), checked by an accessibility engine (axe-core from the npm registry,
// run inside the panel's webview frame): no contrast and no name violations.
// The transcript is made by real turns against the mock API (tools, MCP, errors,
// a stop, a compaction, a waiting approval); a screenshot per theme kind.
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { errorReply, jsonMessageReply, streamReply, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { REPO_ROOT } from '../support/code-server';
import { allowUntil, extensionHostLogTail, pickColorTheme, RESULTS_DIR, runCommand, screenshot, useChatWorkbench } from './workbench';

const THEMES = [
  { kind: 'light', theme: 'Default Light Modern', bodyClass: 'vscode-light' },
  { kind: 'dark', theme: 'Default Dark Modern', bodyClass: 'vscode-dark' },
  { kind: 'high-contrast-light', theme: 'Default High Contrast Light', bodyClass: 'vscode-high-contrast-light' },
  { kind: 'high-contrast-dark', theme: 'Default High Contrast', bodyClass: 'vscode-high-contrast' },
] as const;

interface AxeSummary {
  violations: { id: string; nodes: string[] }[];
  incomplete: { id: string; nodes: string[] }[];
  checked: number;
}

/**
 * Runs axe in the page and keeps what a failure message needs. A string, not a function: the test
 * runner's transform would wrap named helpers in code the page does not have.
 */
const AXE_RUN = (rules: string[]) => `(async () => {
  const r = await axe.run(document, { runOnly: { type: 'rule', values: ${JSON.stringify(rules)} } });
  const brief = (list) => list.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => n.target.join(' ') + ' :: ' + n.html.slice(0, 120) + ' :: ' + (n.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 300)) }));
  return { violations: brief(r.violations), incomplete: brief(r.incomplete), checked: r.passes.reduce((n, p) => n + p.nodes.length, 0) };
})()`;

/** axe rules about contrast and accessible names (what 25.3 asks to be zero). */
const RULES = [
  'color-contrast',
  'button-name',
  'link-name',
  'input-button-name',
  'aria-input-field-name',
  'label',
  'select-name',
  'image-alt',
  'role-img-alt',
  'svg-img-alt',
  'aria-command-name',
  'aria-toggle-field-name',
  'summary-name',
  'frame-title',
];

const MARKDOWN = [
  '## Summary',
  '',
  'I read **src/hello.ts**, ran the tests and changed the greeting. See [the docs](https://example.com/docs).',
  '',
  '- one `inline code` item',
  '- two',
  '',
  // Every kind of token the highlighter colours: comment, keyword, string, number, type, class, function,
  // parameter, literal, template substitution.
  '```ts',
  '// greet someone, politely',
  "import { readFile } from 'node:fs/promises';",
  'export class Greeter<T extends string> {',
  '  constructor(private readonly name: T, private count = 42) {}',
  '  async greet(times: number): Promise<string> {',
  '    const ok = true, nothing = null;',
  '    return `Howdy, ${this.name}! x${times}`;',
  '  }',
  '}',
  '```',
  '',
  '| file | change |',
  '| --- | --- |',
  '| src/hello.ts | +1 −1 |',
].join('\n');

describe('e2e: the panel in every theme kind, checked by axe-core (issue 25.3)', function () {
  this.timeout(600_000);
  const chat = useChatWorkbench({
    workbench: {
      userSettings: {
        'turnstone.approvalDialog': 'panel',
        'turnstone.maxCostPerTurnUsd': 0.1,
        // Each request's worst case (its context and its whole reply limit) stays under the cap.
        'turnstone.maxOutputTokens': 1000,
      },
    },
    prepare: (wb) => {
      const bin = path.join(REPO_ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
      writeFileSync(path.join(wb.server.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [bin, 'stdio'] } } }));
      // Read early in the transcript: enough older text for a compaction to be worth its summary (issue 26.6).
      writeFileSync(path.join(wb.server.workspace, 'notes.txt'), Array.from({ length: 150 }, (_, i) => `note ${i}: ${'the greeting should stay short and friendly '.repeat(2)}`).join('\n'));
    },
  });
  const send = async (text: string) => {
    const input = chat.frame.locator('textarea.input');
    await input.fill(text);
    await input.press('Enter');
  };
  const idle = () => chat.frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });

  before(async () => {
    await makeTranscript().catch(async (error: unknown) => {
      // What the panel looked like when building the transcript went wrong.
      await screenshot(chat.wb.page, 'failures/theme-sweep-setup.png').catch(() => undefined);
      // Which frame holds what: a re-created webview leaves the frame this test holds detached.
      const frames = await Promise.all(
        chat.wb.page.frames().map(async (f) => ({
          url: f.url().slice(0, 80),
          detached: f.isDetached(),
          held: f === chat.frame,
          chat: await f.locator('main#app.turnstone-chat').count().catch(() => -1),
          summary: await f.locator('article.item.assistant', { hasText: 'Summary' }).count().catch(() => -1),
          running: await f.locator('body.turn-running').count().catch(() => -1),
        })),
      );
      console.log(`      frames when the setup failed: ${JSON.stringify(frames.filter((f) => f.chat !== 0 || f.held))} held detached: ${chat.frame.isDetached()}`);
      console.log(extensionHostLogTail(chat.wb));
      throw error;
    });
  });

  async function makeTranscript(): Promise<void> {
    // Tall enough that the whole transcript is on screen at once: axe measures contrast of what is rendered.
    await chat.wb.page.setViewportSize({ width: 1400, height: 3600 });
    // chat.frame, not a copy: allowUntil follows a webview VS Code re-created.
    const { server } = chat;

    // A refused request first: resolved by the next good turn (a resolved card).
    server.enqueue(errorReply(400, 'invalid_request_error', 'messages: text content blocks must be non-empty'));
    await send('start');
    await chat.frame.locator('article.item.error').first().waitFor({ timeout: 60_000 });
    await idle();

    // One turn with thinking, every tool family (MCP text and image too), a failing command, then markdown.
    server.enqueue(
      streamReply([
        { type: 'thinking', thinking: 'I will look at the file, run the tests and then change the greeting.', signature: 'sig-1' },
        { type: 'text', text: 'Let me look around first.' },
        { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'src/hello.ts' } },
        { type: 'tool_use', id: 'tu_notes', name: 'read_file', input: { path: 'notes.txt' } },
        { type: 'tool_use', id: 'tu_glob', name: 'glob_search', input: { pattern: '**/*.ts' } },
        { type: 'tool_use', id: 'tu_grep', name: 'grep_search', input: { pattern: 'greeting' } },
        // Issue 28: the plan pinned above the composer is in every theme's check too.
        {
          type: 'tool_use',
          id: 'tu_plan',
          name: 'todo_write',
          input: {
            todos: [
              { content: 'Look around', status: 'completed', activeForm: 'Looking around' },
              { content: 'Run the tests', status: 'in_progress', activeForm: 'Running the tests' },
              { content: 'Change the greeting', status: 'pending', activeForm: 'Changing the greeting' },
            ],
          },
        },
      ]),
      toolUseReply([
        { id: 'tu_ok', name: 'bash', input: { command: "printf 'ok 1 - adds\\nok 2 - subtracts\\n'", description: 'run the tests' } },
        { id: 'tu_fail', name: 'bash', input: { command: "printf 'not ok 3 - divides\\n'; exit 1" } },
        // Issue 28: a background command's card (stopped by the Stop further down, or still running).
        { id: 'tu_bg', name: 'bash', input: { command: "printf 'listening on 3000\\n'; exec sleep 600", run_in_background: true, description: 'a dev server' } },
        { id: 'tu_mcp', name: 'mcp__everything__echo', input: { message: 'hello' } },
        { id: 'tu_img', name: 'mcp__everything__get-tiny-image', input: {} },
        { id: 'tu_edit', name: 'edit_file', input: { path: 'src/hello.ts', old_string: 'Hello', new_string: 'Howdy' } },
      ]),
      textReply(MARKDOWN),
    );
    await send('look around, test, and make the greeting friendlier');
    await allowUntil(chat, (f) => f.locator('article.item.assistant', { hasText: 'Summary' }));
    await idle();

    // One more short turn, so the long read is older than the messages a compaction keeps verbatim.
    server.enqueue(textReply('You are welcome.'));
    await send('thanks');
    await chat.frame.locator('article.item.assistant', { hasText: 'You are welcome.' }).waitFor({ timeout: 60_000 });
    await idle();

    // A compaction (the summary comes from the model).
    server.enqueue(jsonMessageReply([{ type: 'text', text: 'The user asked for a friendlier greeting; it was changed to Howdy.' }]));
    await runCommand(chat.wb.page, 'Turnstone: Compact Session');
    await chat.frame.locator('.item.compaction').waitFor({ timeout: 60_000 });

    // A stopped turn.
    server.enqueue({ kind: 'hang' });
    const asked = server.requests.length;
    await send('this one will be stopped');
    await chat.frame.locator('body.turn-running').waitFor({ state: 'attached', timeout: 30_000 });
    // Stopped only once its request has reached the server (and taken the hang): stopped before that, the
    // hang would stay queued and the next turn below would get it instead of the rejected key (failed once in CI-like load).
    await server.waitForRequests(asked + 1);
    await chat.frame.locator('textarea.input').press('Escape');
    await chat.frame.locator('.item.interrupted').waitFor({ timeout: 30_000 });
    await idle();

    // A key rejected (its card holds the key field), a spend cap (a pause), a refused request.
    server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
    await send('go on');
    await chat.frame.locator('article.item.error .key-input').waitFor({ timeout: 60_000 });
    await idle();
    // $0.12 at Sonnet's input price: the next request could pass the $0.10 cap.
    server.enqueue(toolUseReply([{ id: 'tu_cap', name: 'glob_search', input: { pattern: '*.md' } }], { usage: { input_tokens: 40_000, output_tokens: 100 } }));
    await send('look for docs');
    await chat.frame.locator('article.item.error.paused').waitFor({ timeout: 60_000 });
    await idle();

    // A command waits for approval in the panel (with "Always allow <rule>"), a steer, a queued message.
    server.enqueue(toolUseReply([{ id: 'tu_wait', name: 'bash', input: { command: 'npm test' } }]));
    await send('run the tests again');
    await chat.frame.locator('article.item.tool[data-id="tu_wait"][data-status="waiting"]').waitFor({ timeout: 60_000 });
    await send('and tell me what failed');
    const input = chat.frame.locator('textarea.input');
    await input.fill('afterwards, update the README');
    await input.press('Alt+Enter');
    await chat.frame.locator('.queued .queued-item').waitFor({ timeout: 30_000 });
  }

  for (const t of THEMES) {
    it(`25.3: ${t.kind}: every card type, 0 contrast and 0 name violations`, async () => {
      await pickColorTheme(chat.wb.page, t.theme);
      const frame = chat.frame;
      await frame.locator(`body.${t.bodyClass}${t.bodyClass === 'vscode-high-contrast' ? ':not(.vscode-high-contrast-light)' : ''}`).waitFor({ state: 'attached', timeout: 60_000 });
      await assertEveryCardType(frame);
      // The whole transcript on screen (nothing skipped by content-visibility or scrolled away).
      await frame.evaluate(() => {
        const style = document.createElement('style');
        style.textContent = '.item, .md-chunk { content-visibility: visible !important; }';
        document.head.append(style);
      });
      const fits = await frame.locator('.transcript').evaluate((el) => el.scrollHeight <= el.clientHeight + 1);
      assert.ok(fits, 'the whole transcript is on screen for the check');
      await screenshot(chat.wb.page, `theme-${t.kind}.png`);
      // The panel itself at full size, in two halves (the whole window is too tall to read).
      const box = (await chat.wb.page.locator('.part.sidebar').boundingBox())!;
      const half = Math.ceil(box.height / 2);
      for (const [i, y] of [box.y, box.y + half].entries()) {
        await chat.wb.page.screenshot({ path: path.join(RESULTS_DIR, `theme-${t.kind}-panel-${i + 1}.png`), clip: { x: box.x, y, width: box.width, height: half } });
      }

      await frame.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
      const result = (await frame.evaluate(AXE_RUN(RULES))) as AxeSummary;
      const contrastUnsure = result.incomplete.find((i) => i.id === 'color-contrast')?.nodes.length ?? 0;
      console.log(`      ${t.kind}: ${result.checked} checks passed, ${contrastUnsure} contrast checks undecided by axe`);
      for (const i of result.incomplete) for (const n of i.nodes.slice(0, 5)) console.log(`        undecided ${i.id}: ${n}`);
      assert.deepEqual(result.violations, [], `axe violations in ${t.kind}:\n${JSON.stringify(result.violations, null, 2)}`);
      assert.ok(result.checked > 100, 'axe checked the cards (not an empty page)');
      // 25.3: the command of a bash card is readable (it was white on white in High Contrast Light).
      const command = await frame.locator('article.item.tool[data-id="tu_ok"] .tool-title code').evaluate((el) => {
        const s = getComputedStyle(el);
        return { color: s.color, visible: el.getBoundingClientRect().width > 0 };
      });
      assert.ok(command.visible);
    });
  }
});

/** Answers every request of the turn with the card's Allow until `done` shows. */

/** The panel holds every card type the transcript can show. */
async function assertEveryCardType(frame: Frame): Promise<void> {
  const expected: Record<string, string> = {
    'user message': 'article.item.user',
    'steered message': 'article.item.user .delivery',
    'queued message': '.queued .queued-item',
    'assistant markdown with a code block and a table': 'article.item.assistant .code-block',
    'markdown table': 'article.item.assistant table',
    thinking: 'article.item.thinking',
    'read card': 'article.item.tool[data-id="tu_read"]',
    'glob card': 'article.item.tool[data-id="tu_glob"]',
    'grep card': 'article.item.tool[data-id="tu_grep"]',
    'bash card with output': 'article.item.tool[data-id="tu_ok"] pre.output',
    'failing bash card with its exit line': 'article.item.tool[data-id="tu_fail"] .exit-line',
    'MCP card with output': 'article.item.tool[data-id="tu_mcp"] pre.mcp-output',
    'MCP card with an image': 'article.item.tool[data-id="tu_img"] .tool-images img',
    'edit card with diff': 'article.item.tool[data-id="tu_edit"] details.diff',
    'waiting approval with its buttons': 'article.item.tool[data-id="tu_wait"] button.perm-allow-always',
    'answered approval': 'article.item.tool[data-id="tu_ok"] .item.permission.settled',
    'resolved error': 'article.item.error.resolved',
    'rejected key with its field': 'article.item.error .key-input',
    'spend-cap pause': 'article.item.error.paused button.continue',
    compaction: '.item.compaction',
    interrupted: '.item.interrupted',
    'plan above the composer': 'details.plan[open] .plan-in-progress',
    'plan card': 'article.item.tool[data-id="tu_plan"]',
    'background command card': 'article.item.tool[data-id="tu_bg"] .background-line',
  };
  const missing: string[] = [];
  for (const [what, selector] of Object.entries(expected)) if ((await frame.locator(selector).count()) === 0) missing.push(what);
  assert.deepEqual(missing, [], 'every card type is in the panel');
}
