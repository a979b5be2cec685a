// Issue 30, provider vscode-lm on today's VS Code: a test extension registers a
// language model through VS Code's own API (test/fixtures/lm-provider-extension,
// scripted, no network), Turnstone is set to use it, and a turn goes through the
// Language Model API with a tool call; another is stopped while the model
// streams, and the session goes on. The register API is stable from VS Code
// 1.104: on the oldest supported build (1.100) this suite is skipped.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CODE_SERVER_VERSION, REPO_ROOT } from '../support/code-server';
import { allowUntil, screenshot, useChatWorkbench } from './workbench';

const [major = 0, minor = 0] = CODE_SERVER_VERSION.split('.').map(Number);
const hasRegisterApi = major > 4 || (major === 4 && minor >= 104);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'turnstone-lm-'));
const lmLog = path.join(scratch, 'lm.jsonl');
const fixtureVsix = path.join(scratch, 'lm-provider.vsix');

interface LmEntry {
  event: string;
  tools?: string[];
  results?: string[];
}
const entries = (): LmEntry[] => (existsSync(lmLog) ? readFileSync(lmLog, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as LmEntry) : []);

/** Polls the test model's log (written by another process) until `what` is in it. */
async function untilLogged(what: (e: LmEntry[]) => boolean, timeoutMs = 60_000): Promise<LmEntry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = entries();
    if (what(now)) return now;
    if (Date.now() > deadline) throw new Error(`the test model never logged it; its log:\n${JSON.stringify(now, null, 1)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

(hasRegisterApi ? describe : describe.skip)('e2e: provider vscode-lm through a language model the editor registers (VS Code >= 1.104)', function () {
  this.timeout(240_000);
  before(() => {
    const dir = path.join(REPO_ROOT, 'test', 'fixtures', 'lm-provider-extension');
    execFileSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '-o', fixtureVsix], { cwd: dir, stdio: 'pipe' });
  });
  const chat = useChatWorkbench({
    workbench: {
      extraVsix: [fixtureVsix],
      env: { TURNSTONE_LM_LOG: lmLog },
      userSettings: { 'chat.disableAIFeatures': false, 'turnstone.provider': 'vscode-lm', 'turnstone.model': 'turnstone-test/scripted' },
    },
  });

  it('30: a turn through the Language Model API calls read_file, gets its result back and answers; the cost shows as included', async () => {
    const frame = await chat.liveFrame();
    const input = frame.locator('textarea.input');
    await input.click();
    await input.fill('What does src/hello.ts start with?');
    await input.press('Enter');
    await allowUntil(chat, (f) => f.locator('article.item.assistant', { hasText: 'The file starts with:' }));

    const live = await chat.liveFrame();
    const answer = await live.locator('article.item.assistant', { hasText: 'The file starts with:' }).innerText();
    assert.match(answer, /export const greeting/);
    const card = live.locator('article.item.tool[data-id="lm_call_1"]');
    assert.equal(await card.getAttribute('data-status'), 'done');
    const requests = entries().filter((e) => e.event === 'request');
    assert.equal(requests.length, 2, 'one request for the tool call, one with its result');
    assert.ok(requests[0]?.tools?.includes('read_file'), `Turnstone's tools went to the model: ${JSON.stringify(requests[0]?.tools)}`);
    assert.match(requests[1]?.results?.[0] ?? '', /export const greeting/, 'the tool result went back as a LanguageModelToolResultPart');
    await live.locator('footer.usage .usage-cost', { hasText: 'included' }).waitFor({ timeout: 30_000 });
    assert.doesNotMatch(await live.locator('footer.usage').innerText(), /\$/);
    assert.equal(chat.server.requests.length, 0, 'nothing went to the Anthropic API');
    await screenshot(chat.wb.page, 'vscode-lm-tool-turn.png');
  });

  it('30: Stop while the model streams cancels its request; the next turn in the same session completes', async () => {
    const frame = await chat.liveFrame();
    const input = frame.locator('textarea.input');
    await input.fill('Count slowly, please.');
    await input.press('Enter');
    await untilLogged((e) => e.some((x) => x.event === 'streaming'));
    await frame.locator('article.item.assistant', { hasText: 'word3' }).waitFor({ timeout: 30_000 });
    await frame.locator('button.stop').click();
    // The cancellation reached the provider through the CancellationToken, and the turn ended.
    await untilLogged((e) => e.some((x) => x.event === 'cancelled'));
    await frame.locator('button.stop').waitFor({ state: 'hidden', timeout: 60_000 });

    const before = entries().filter((e) => e.event === 'request').length;
    await input.fill('And once more: what does src/hello.ts start with?');
    await input.press('Enter');
    await allowUntil(chat, (f) => f.locator('article.item.assistant', { hasText: 'The file starts with:' }).nth(1));
    assert.equal(entries().filter((e) => e.event === 'request').length, before + 2);
    await screenshot(chat.wb.page, 'vscode-lm-after-stop.png');
  });
});
