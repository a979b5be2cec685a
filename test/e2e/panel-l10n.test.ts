// Issue 25, languages, in the real workbench: with the display language set to
// Simplified Chinese (code-server --locale zh-cn, no language pack: our own
// strings come from package.nls.zh-cn.json and l10n/bundle.l10n.zh-cn.json),
// the view, a command title, a host notification and the panel speak Chinese.
import * as assert from 'node:assert/strict';
import { textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { chatFrame, runCommand, screenshot, useChatWorkbench } from './workbench';

describe('e2e: languages (issue 25)', function () {
  this.timeout(240_000);
  // Approvals in the panel (the product's default; the harness opts into the modal for older tests).
  const chat = useChatWorkbench({ workbench: { locale: 'zh-cn', userSettings: { 'turnstone.approvalDialog': 'panel' } }, focusChat: false });

  it('25.l10n: with the display language zh-cn the panel, the view title, a command and a host message are in Simplified Chinese', async () => {
    const page = chat.wb.page;
    await page.locator('.activitybar .action-item a[aria-label^="Turnstone"]').click();
    const frame = await chatFrame(page);
    // The panel: the host put the zh-cn bundle in the page and t() reads it.
    assert.equal(await frame.locator('html').getAttribute('lang'), 'zh-cn');
    await frame.locator('.empty p', { hasText: '让 Turnstone 在此工作区中读取、修改或运行内容。' }).waitFor({ state: 'visible', timeout: 30_000 });
    assert.equal(await frame.locator('main#app').getAttribute('aria-label'), 'Turnstone 对话');
    assert.match((await frame.locator('textarea.input').getAttribute('placeholder')) ?? '', /^询问 Turnstone…（Enter 发送/);
    assert.equal(await frame.locator('button.send').getAttribute('aria-label'), '发送');
    // The view's name comes from package.nls.zh-cn.json (its pane header is hidden: a lone view is named in the sidebar's title).
    await page.locator('.pane-header[aria-label^="对话"]').first().waitFor({ state: 'attached', timeout: 30_000 });
    await screenshot(page, 'l10n-zh-cn-panel.png');

    // A command titled from package.nls.zh-cn.json; its notification from vscode.l10n.t.
    await runCommand(page, 'Turnstone: 压缩会话');
    const toast = page.locator('.notification-toast', { hasText: 'Turnstone：暂无可压缩的内容。' });
    await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
    await screenshot(page, 'l10n-zh-cn-notification.png');
  });

  it('issue 47 item 8: the approval reason and a stopped request read in Chinese, never "needs … permission", "interrupted" or "aborted"', async () => {
    const page = chat.wb.page;
    const frame = await chatFrame(page);
    chat.server.enqueue(toolUseReply([{ id: 'tu_zh', name: 'bash', input: { command: 'touch zh.txt' } }]), textReply('unused'));
    const input = frame.locator('textarea.input');
    await input.fill('make a file');
    await input.press('Enter');
    const card = frame.locator('article.item.tool[data-id="tu_zh"]');
    const reason = card.locator('.perm-reason');
    await reason.waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(await reason.innerText(), 'Turnstone 询问的原因：在“询问”模式下，bash(touch zh.txt) 需要命令权限');
    await screenshot(page, 'l10n-zh-cn-approval.png');
    await frame.locator('button.stop').click();
    await card.locator('.perm-state').waitFor({ timeout: 60_000 });
    await frame.locator('body:not(.turn-running)').waitFor({ state: 'attached', timeout: 60_000 });
    const text = await card.innerText();
    assert.doesNotMatch(text, /interrupted|aborted|needs|permission|denied/i, text);
    await screenshot(page, 'l10n-zh-cn-stopped.png');
  });
});
