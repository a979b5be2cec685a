import assert from 'node:assert/strict';
import { checkPanelImages } from '../../../src/host/panel/panel-images';
import { itemsFromHistory } from '../../../src/host/panel/panel-bridge';
import { imageFromBytes } from '../../../src/runtime/context/images';
import { panelHtml } from '../../../src/webview/panel-html';
import { Transcript } from '../../../src/webview/transcript';
import { TranscriptItem, WebviewToHost } from '../../../src/webview/protocol';
import { claimedType, fitWithin, LARGE_PNG_BYTES, planImage } from '../../../src/webview/ui/image-plan';
import { makePng } from '../../fixtures/images';

describe('panel: images', () => {
  it('downscale plan: long edge ≤ 1568 px, aspect kept, never upscaled; large PNGs re-encoded; GIFs become PNG only when resized', () => {
    assert.deepEqual(fitWithin(3136, 1000), { width: 1568, height: 500 });
    assert.deepEqual(fitWithin(1000, 4000), { width: 392, height: 1568 });
    assert.deepEqual(fitWithin(800, 600), { width: 800, height: 600 });
    assert.deepEqual(fitWithin(20000, 1), { width: 1568, height: 1 });
    assert.deepEqual(planImage('image/png', 2880, 1800, 3_000_000), { width: 1568, height: 980, encodeAs: 'image/png' });
    assert.deepEqual(planImage('image/png', 800, 600, LARGE_PNG_BYTES + 1), { width: 800, height: 600, encodeAs: 'image/png' });
    assert.deepEqual(planImage('image/png', 800, 600, 50_000), { width: 800, height: 600, encodeAs: undefined });
    assert.deepEqual(planImage('image/gif', 400, 300, 2_000_000), { width: 400, height: 300, encodeAs: undefined }, 'a small GIF keeps its animation');
    assert.equal(planImage('image/gif', 4000, 3000, 2_000_000).encodeAs, 'image/png');
    assert.equal(planImage('image/jpeg', 4000, 3000, 2_000_000).encodeAs, 'image/jpeg');
    assert.equal(claimedType('image/JPG'), 'image/jpeg');
  });

  it('the host re-checks composer images by their bytes: a fake PNG or a mislabelled one is refused with a message', () => {
    const good = checkPanelImages([{ mediaType: 'image/png', data: makePng(30, 20).toString('base64'), width: 30, height: 20 }]);
    assert.ok('images' in good);
    assert.deepEqual([good.images[0]!.width, good.images[0]!.height], [30, 20]);
    const fake = checkPanelImages([{ mediaType: 'image/png', data: Buffer.from('<script>x</script>').toString('base64'), width: 1, height: 1 }]);
    assert.deepEqual(fake, { error: 'Image 1 is not a PNG, JPEG, GIF or WebP image.' });
    const liar = checkPanelImages([{ mediaType: 'image/webp', data: makePng(2, 2).toString('base64'), width: 2, height: 2 }]);
    assert.match('error' in liar ? liar.error : '', /claims to be image\/webp but its bytes are image\/png/);
    // The size comes from the bytes, not from what the webview said.
    const lying = checkPanelImages([{ mediaType: 'image/png', data: makePng(4, 4).toString('base64'), width: 4000, height: 4000 }]);
    assert.deepEqual('images' in lying ? [lying.images[0]!.width, lying.images[0]!.height] : [], [4, 4]);
  });

  it('protocol: send carries at most 20 images, never instead of text; a user item shows them', () => {
    const image = { mediaType: 'image/png', data: 'AAAA', width: 1, height: 1 };
    assert.equal(WebviewToHost.safeParse({ type: 'send', text: 'see', images: [image] }).success, true);
    assert.equal(WebviewToHost.safeParse({ type: 'send', text: '', images: [image] }).success, false);
    assert.equal(WebviewToHost.safeParse({ type: 'send', text: 'x', images: Array(21).fill(image) }).success, false);
    assert.equal(WebviewToHost.safeParse({ type: 'send', text: 'x', images: [{ ...image, mediaType: 'image/svg+xml' }] }).success, false);
    assert.equal(TranscriptItem.safeParse({ kind: 'user', id: 'u1', text: 'see', images: [image] }).success, true);
  });

  it('a resumed session shows a prompt\'s images with its text', () => {
    const shot = imageFromBytes(makePng(5, 5), 'x');
    const items = itemsFromHistory([{ role: 'user', content: [{ type: 'text', text: 'look' }, shot] }, { role: 'assistant', content: [{ type: 'text', text: 'ok' }] }]);
    assert.equal(items.length, 2);
    const user = items[0]!;
    assert.equal(user.kind === 'user' && user.images?.[0]?.data, shot.data);
  });

  it('tool results: a resumed read_file of a PNG shows its image on the tool card; a live tool_update carries it into the model', () => {
    const shot = imageFromBytes(makePng(7, 3), 'x');
    const items = itemsFromHistory([
      { role: 'user', content: [{ type: 'text', text: 'read it' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.png' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.png: PNG 7×3', images: [shot] }] },
    ]);
    const tool = items.find((i) => i.kind === 'tool')!;
    assert.equal(tool.kind === 'tool' && tool.images?.[0]?.width, 7);
    const model = new Transcript();
    model.apply({ type: 'item_add', item: { kind: 'tool', id: 't2', name: 'read_file', status: 'running', view: { kind: 'read', path: 'a.png' } } });
    model.apply({ type: 'tool_update', id: 't2', status: 'done', images: [{ mediaType: 'image/png', data: shot.data, width: 7, height: 3 }] });
    const live = model.items.find((i) => i.id === 't2')!;
    assert.equal(live.kind === 'tool' && live.images?.[0]?.data, shot.data);
  });

  it('CSP: img-src allows data: and blob: for thumbnails; everything else stays strict', () => {
    const html = panelHtml({ cspSource: 'vscode-resource:', nonce: 'abc', asset: (n) => n });
    const csp = /content="([^"]+)"/.exec(html)![1]!;
    assert.match(csp, /img-src vscode-resource: data: blob:/);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-abc'(;|$)/);
    assert.doesNotMatch(csp, /(script|style|default|font)-src[^;]*(data:|blob:)/);
    assert.doesNotMatch(csp, /unsafe/);
  });
});
