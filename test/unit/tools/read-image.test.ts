import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { makeGifHeader, makePng } from '../../fixtures/images';
import { useNodeEnv } from './helpers';

describe('tools: read_file on images', () => {
  const { file, run } = useNodeEnv();

  it('returns a PNG as an image block with its pixel size, and a text line saying so', async () => {
    fs.writeFileSync(file('shot.png'), makePng(64, 48));
    const out = await run('read_file', { path: 'shot.png' });
    assert.equal(out.isError, false);
    assert.match(out.content, /^shot\.png: PNG 64×48, \d+ KB \(shown as an image\)$/);
    assert.equal(out.images?.length, 1);
    const image = out.images![0]!;
    assert.deepEqual([image.mediaType, image.width, image.height], ['image/png', 64, 48]);
    assert.ok(Buffer.from(image.data, 'base64').equals(makePng(64, 48)));
  });

  it('sniffs by content: an image under a text name is an image, a "PNG" that is text stays text, SVG stays text', async () => {
    fs.writeFileSync(file('notes.txt'), makePng(3, 2));
    assert.equal((await run('read_file', { path: 'notes.txt' })).images?.[0]?.width, 3);
    fs.writeFileSync(file('fake.png'), 'just text\n');
    const fake = await run('read_file', { path: 'fake.png' });
    assert.equal(fake.images, undefined);
    assert.match(fake.content, /1\tjust text/);
    fs.writeFileSync(file('logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n');
    const svg = await run('read_file', { path: 'logo.svg' });
    assert.equal(svg.images, undefined);
    assert.match(svg.content, /<svg/);
  });

  it('a damaged image header is an error result, not a crash', async () => {
    fs.writeFileSync(file('cut.png'), makePng(10, 10).subarray(0, 14));
    const out = await run('read_file', { path: 'cut.png' });
    assert.equal(out.isError, true);
    assert.match(out.content, /cut\.png: the image\/png header is damaged/);
    fs.writeFileSync(file('anim.gif'), makeGifHeader(5, 7));
    assert.deepEqual([(await run('read_file', { path: 'anim.gif' })).images?.[0]?.height], [7]);
  });
});
