// The input box: send, steer, queue, stop, and the `@` attach picker. Issue 25.1:
// it tells the host when the user starts typing and when they paused (~1.5 s
// without a key), so a modal approval never opens under their keystrokes. Leaving
// the panel is not a pause: a busy workbench may blur it for a moment while the
// user goes on typing.
import assert from 'node:assert/strict';
import { clearPosted, eventually, hostSend, openPanel, posted, settle, usePanelHarness } from './harness';

describe('chat panel: composer', function () {
  const rig = usePanelHarness();

  it('25.1: one "typing" when a burst of keys starts, one "paused" after ~1.5 s without keys; losing focus is not a pause', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const input = page.locator('textarea.input');
    await input.click();
    await clearPosted(page);
    const typing = async () => (await posted(page, { typing: true })).filter((m) => m.type === 'typing');
    // Keys ~60 ms apart: one report for the whole burst, however long.
    await input.pressSequentially('a steering message, typed at a steady pace', { delay: 60 });
    assert.deepEqual((await typing())[0], { type: 'typing', active: true }, 'one report for the whole burst');
    const paused = await eventually(typing, (m) => m.length === 2, 10_000);
    assert.deepEqual(paused, [{ type: 'typing', active: true }, { type: 'typing', active: false }]);

    await clearPosted(page);
    // A key and a blur in one task, read in the same task: only the blur could have ended typing by then.
    const atBlur = await page.evaluate(`(() => {
      document.querySelector('textarea.input').dispatchEvent(new KeyboardEvent('keydown', { key: 'm', bubbles: true }));
      window.dispatchEvent(new Event('blur'));
      return window.__posted.filter((m) => m.type === 'typing');
    })()`);
    assert.deepEqual(atBlur, [{ type: 'typing', active: true }], 'a blur while typing is not a pause');
    assert.deepEqual(await eventually(typing, (m) => m.length === 2, 10_000), [{ type: 'typing', active: true }, { type: 'typing', active: false }], 'the pause follows ~1.5 s without keys');
    await page.close();
  });

  it('Enter sends, Shift+Enter adds a line; while running Enter steers, Alt+Enter and Queue queue, Stop stops', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const input = page.locator('textarea.input');
    await clearPosted(page);

    await input.click();
    await input.pressSequentially('first line');
    await page.keyboard.press('Shift+Enter');
    await input.pressSequentially('second line');
    await page.keyboard.press('Enter');
    assert.equal(await input.inputValue(), '');
    assert.equal(await page.locator('button.stop').isVisible(), false);
    assert.equal(await page.locator('button.queue').isVisible(), false);

    await hostSend(page, { type: 'turn', state: 'running' });
    await settle(page);
    assert.equal(await page.locator('button.stop').isVisible(), true);
    assert.equal(await page.locator('button.queue').isVisible(), true);
    assert.equal(await page.locator('button.send').getAttribute('aria-label'), 'Steer');

    await input.pressSequentially('use the other file');
    await page.keyboard.press('Enter');
    await input.pressSequentially('then run lint');
    await page.keyboard.press('Alt+Enter');
    await input.pressSequentially('and update the docs');
    await page.locator('button.queue').click();
    await page.keyboard.press('Enter'); // empty input: nothing is sent
    await page.locator('button.stop').click();

    assert.deepEqual(await posted(page), [
      { type: 'send', text: 'first line\nsecond line', attachments: [] },
      { type: 'steer', text: 'use the other file', attachments: [] },
      { type: 'queue', text: 'then run lint', attachments: [] },
      { type: 'queue', text: 'and update the docs', attachments: [] },
      { type: 'stop' },
    ]);

    // The host owns the queue; the panel shows it and can remove entries.
    await hostSend(page, { type: 'queued', items: [{ id: 'q1', text: 'then run lint' }, { id: 'q2', text: 'and update the docs' }] });
    await settle(page);
    assert.equal(await page.locator('.queued .chip').count(), 2);
    await clearPosted(page);
    await page.locator('.queued .chip').nth(0).getByRole('button').click();
    assert.deepEqual(await posted(page), [{ type: 'unqueue', id: 'q1' }]);

    await hostSend(page, { type: 'turn', state: 'idle' });
    await settle(page);
    assert.equal(await page.locator('button.stop').isVisible(), false);
    assert.equal(await page.locator('button.send').getAttribute('aria-label'), 'Send');
    await page.close();
  });

  it('`@` asks the host for candidates, filters them and attaches the chosen one', async function () {
    const page = await openPanel(rig.browser, rig.harness);
    const input = page.locator('textarea.input');
    await clearPosted(page);
    await input.click();
    await input.pressSequentially('look at @');
    assert.deepEqual(await posted(page), [{ type: 'attach', query: '' }]);
    assert.equal(await page.locator('.picker').isVisible(), true);
    await hostSend(page, {
      type: 'attach_candidates',
      candidates: [
        { kind: 'selection', path: 'src/app.ts', label: 'app.ts:10-24', range: { startLine: 10, endLine: 24 } },
        { kind: 'file', path: 'src/app.ts', label: 'app.ts' },
        { kind: 'file', path: 'README.md', label: 'README.md' },
      ],
    });
    await input.pressSequentially('rea');
    assert.equal(await page.locator('.picker-option').count(), 1);
    await page.keyboard.press('Enter');
    assert.equal(await page.locator('.picker').isVisible(), false);
    assert.equal(await input.inputValue(), 'look at ');
    assert.equal(await page.locator('.composer .attachments .chip .chip-text').textContent(), 'README.md');

    // Keyboard path through the picker: @, arrow down, Tab.
    await input.pressSequentially('and @');
    await hostSend(page, { type: 'attach_candidates', candidates: [{ kind: 'selection', path: 'src/app.ts', label: 'app.ts:10-24', range: { startLine: 10, endLine: 24 } }, { kind: 'file', path: 'src/app.ts', label: 'app.ts' }] });
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    assert.equal(await page.locator('.composer .attachments .chip').count(), 2);
    await page.keyboard.press('Enter');
    const sent = (await posted(page)).filter((m) => m.type === 'send');
    assert.deepEqual(sent, [{
      type: 'send',
      text: 'look at and',
      attachments: [{ kind: 'file', path: 'README.md', label: 'README.md' }, { kind: 'file', path: 'src/app.ts', label: 'app.ts' }],
    }]);
    assert.equal(await page.locator('.composer .attachments .chip').count(), 0);

    // The host can fill the composer ("Ask about selection").
    await hostSend(page, { type: 'compose', text: 'Explain this', attachments: [{ kind: 'selection', path: 'src/app.ts', label: 'app.ts:1-3' }] });
    assert.equal(await input.inputValue(), 'Explain this');
    assert.equal(await page.locator('.composer .attachments .chip .chip-text').textContent(), 'app.ts:1-3');
    await page.close();
  });
});
