import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, stat, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { historyChars, imageTokens } from '../../../src/runtime/context/context-window';
import { historyProblem, normaliseHistory } from '../../../src/runtime/session/history';
import { ImageError, imageFromBytes, sniffImageType } from '../../../src/runtime/context/images';
import { resultText } from '../../../src/runtime/mcp/result';
import { dropOldImages } from '../../../src/runtime/context/overflow';
import { toAnthropicParams } from '../../../src/runtime/providers/anthropic-params';
import { explainImageRejection } from '../../../src/runtime/providers/image-rejection';
import { toChatMessages } from '../../../src/runtime/providers/openai-compatible';
import { forkSession, JsonlSessionStore, listSessions, loadSession } from '../../../src/runtime/session/session';
import { imagesDirFor } from '../../../src/runtime/session/session-images';
import { type ImageBlock, type Message, ModelError, type ModelRequest } from '../../../src/runtime/types';
import { makeGifHeader, makePng } from '../../fixtures/images';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { baseConfig, memoryTools, recordEvents, ScriptedModel, step, usage } from './fakes';

const png = (w: number, h: number, seed = 0): ImageBlock => imageFromBytes(makePng(w, h, seed), 'test.png');

const request = (messages: Message[]): ModelRequest => ({ model: 'm', system: '', messages, tools: [], maxTokens: 100, afterToolResults: false });

function conversationWithImages(): Message[] {
  return [
    { role: 'user', content: [{ type: 'text', text: 'look' }, png(4, 3)] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.png' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.png: PNG 5×2', images: [png(5, 2, 1)] }] },
    { role: 'assistant', content: [{ type: 'text', text: 'seen' }] },
  ];
}

describe('runtime: images', () => {
  describe('sniffing and dimensions', () => {
    it('decides the type by the bytes, not the name, and reads the size from the header', () => {
      const image = imageFromBytes(makePng(37, 21), 'shot.jpg.png');
      assert.equal(image.mediaType, 'image/png');
      assert.deepEqual([image.width, image.height], [37, 21]);
      assert.equal(Buffer.from(image.data, 'base64').equals(makePng(37, 21)), true);
      assert.equal(sniffImageType(makeGifHeader(9, 8)), 'image/gif');
      assert.equal(sniffImageType(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'image/jpeg');
      const webp = Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WEBP')]);
      assert.equal(sniffImageType(webp), 'image/webp');
    });

    it('refuses text dressed as an image, SVG, a type mismatch and a damaged header, with a clear message', () => {
      assert.throws(() => imageFromBytes(Buffer.from('<html>not a png</html>'), 'fake.png'), (e: unknown) => e instanceof ImageError && /fake\.png is not a PNG, JPEG, GIF or WebP/.test(e.message));
      assert.equal(sniffImageType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
      assert.throws(() => imageFromBytes(makePng(2, 2), 'x', 'image/jpeg'), /claims to be image\/jpeg but its bytes are image\/png/);
      assert.throws(() => imageFromBytes(makePng(2, 2).subarray(0, 12), 'cut.png'), /header is damaged/);
    });
  });

  describe('providers', () => {
    it('Anthropic: image blocks in user messages and inside tool_result content, after its text', () => {
      const params = toAnthropicParams(request(conversationWithImages()));
      const first = params.messages[0]!.content as unknown as Array<Record<string, unknown>>;
      assert.deepEqual(first[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(4, 3).data } });
      const result = (params.messages[2]!.content as unknown as Array<Record<string, unknown>>)[0]!;
      const content = result.content as Array<Record<string, unknown>>;
      assert.deepEqual(content[0], { type: 'text', text: 'a.png: PNG 5×2' });
      assert.deepEqual(content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png(5, 2, 1).data } });
    });

    it('OpenAI-compatible: image_url data URLs; tool-result images in a user message after the tool messages', () => {
      const chat = toChatMessages('sys', conversationWithImages());
      assert.deepEqual(chat[1], {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png(4, 3).data}` } },
        ],
      });
      assert.deepEqual(chat[3], { role: 'tool', tool_call_id: 't1', content: 'a.png: PNG 5×2' });
      const follow = chat[4] as unknown as { role: string; content: Array<Record<string, unknown>> };
      assert.equal(follow.role, 'user');
      assert.match(String(follow.content[0]!.text), /tool call t1/);
      assert.deepEqual(follow.content[1], { type: 'image_url', image_url: { url: `data:image/png;base64,${png(5, 2, 1).data}` } });
      // A text-only user message keeps its plain string form.
      assert.deepEqual(toChatMessages('', [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]), [{ role: 'user', content: 'hi' }]);
    });

    it('a 400 about images becomes a message naming the model; other errors pass through', () => {
      const raw = new ModelError('invalid_request', 'openai-compatible: 400 model does not support image input', { status: 400 });
      const explained = explainImageRejection(raw, 'llama3:8b', true) as ModelError;
      assert.equal(explained.kind, 'invalid_request');
      assert.match(explained.message, /The model "llama3:8b" did not accept the images/);
      assert.match(explained.message, /vision/);
      assert.equal(explainImageRejection(raw, 'llama3:8b', false), raw);
      const other = new ModelError('invalid_request', '400 max_tokens too large');
      assert.equal(explainImageRejection(other, 'm', true), other);
    });
  });

  describe('MCP tool results', () => {
    it('image content becomes image blocks with a note in place; a wrong or unsupported type stays a note', () => {
      const data = makePng(6, 4).toString('base64');
      const out = resultText({
        content: [
          { type: 'text', text: 'before' },
          { type: 'image', mimeType: 'image/png', data },
          { type: 'image', mimeType: 'image/jpeg', data },
          { type: 'image', mimeType: 'image/svg+xml', data: Buffer.from('<svg/>').toString('base64') },
        ],
      });
      assert.equal(out.images.length, 1);
      assert.deepEqual([out.images[0]!.width, out.images[0]!.height, out.images[0]!.data], [6, 4, data]);
      const lines = out.text.split('\n');
      assert.equal(lines[0], 'before');
      assert.match(lines[1]!, /^\[image 1: PNG 6×4, \d+ KB\]$/);
      assert.match(lines[2]!, /claims to be image\/jpeg but its bytes are image\/png; not passed to the model/);
      assert.match(lines[3]!, /image\/svg\+xml.*only PNG, JPEG, GIF and WebP/);
    });
  });

  describe('context accounting', () => {
    it('an image costs width × height / 750 tokens in the estimate, scaled like the API beyond 1568 px', () => {
      assert.equal(imageTokens(1000, 750), 1000);
      assert.equal(imageTokens(3136, 1568), imageTokens(1568, 784));
      const withImage: Message[] = [{ role: 'user', content: [{ ...png(4, 3), width: 1500, height: 1000 }] }];
      const without: Message[] = [{ role: 'user', content: [] }];
      assert.equal(historyChars(withImage) - historyChars(without), 2000 * 4);
    });

    it('compaction drops old images first, oldest first, keeps the newest prompt\'s images, and the history stays valid', () => {
      const big = (seed: number): ImageBlock => ({ ...png(2, 2, seed), width: 1500, height: 1000 });
      const history: Message[] = [
        { role: 'user', content: [{ type: 'text', text: 'one' }, big(1)] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read_file', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'shot', images: [big(2)] }] },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }] },
        { role: 'user', content: [{ type: 'text', text: 'now this' }, big(3)] },
      ];
      const target = 2000 + 200; // room for about one image
      const out = dropOldImages(history, target);
      assert.ok(out);
      assert.equal(out.dropped, 2);
      assert.deepEqual(out.messages[0]!.content[1], { type: 'text', text: '[image 1500×1000 removed to fit the context window]' });
      const result = out.messages[2]!.content[0]!;
      assert.equal(result.type === 'tool_result' && result.images, undefined);
      assert.match(result.type === 'tool_result' ? result.content : '', /^shot\n\[image 1500×1000 removed/);
      assert.equal(out.messages[4]!.content[1]!.type, 'image');
      assert.equal(historyProblem(out.messages), undefined);
      assert.equal(dropOldImages(history, 1_000_000), undefined);
    });

    it('C1 in the loop: turns with images compact by dropping the oldest images first, without a summary when that is enough, and say so', async () => {
      const big = (seed: number): ImageBlock => ({ ...png(2, 2, seed), width: 1500, height: 1000 });
      const model = new ScriptedModel([step('one', [], usage(2_100)), step('two', [], usage(4_200)), step('three', [], usage(6_300)), step('four', [], usage(2_400))]);
      const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig, contextWindow: 10_000, autoCompactPercent: 80, env: {} });
      const events = recordEvents(rt);
      for (const [i, word] of ['a', 'b', 'c'].entries()) assert.equal((await rt.runTurn(word, { images: [big(i)] })).outcome, 'completed');
      const last = await rt.runTurn('d', { images: [big(3)] });
      assert.equal(last.outcome, 'completed');
      assert.deepEqual(last.autoCompaction, { trigger: 'auto', removedMessageCount: 0, summarySource: 'local', droppedImages: 3 });
      assert.equal(model.completeRequests.length, 0, 'no summary was needed');
      const sent = model.requests[3]!.messages;
      assert.equal(historyProblem(sent), undefined);
      const images = sent.flatMap((m) => (m.role === 'user' ? m.content.filter((b) => b.type === 'image') : []));
      assert.equal(images.length, 1, 'only the newest prompt keeps its image');
      assert.equal(JSON.stringify(sent).match(/removed to fit the context window/g)?.length, 3);
      assert.equal(events.filter((e) => e.type === 'compaction').length, 1);
      // The first request carried the prompt's text then its image.
      assert.deepEqual(model.requests[0]!.messages[0]!.content.map((b) => b.type), ['text', 'image']);
    });

    it('T9: normalising keeps images and tool-result images in place', () => {
      const history = conversationWithImages();
      assert.deepEqual(normaliseHistory(history), history);
    });
  });

  describe('sessions', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'turnstone-images-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('stores each image once beside the session, content-addressed; the JSONL holds references; resume restores them', async () => {
      const store = await JsonlSessionStore.create(dir);
      const shot = png(300, 200, 7);
      for (let i = 0; i < 50; i++) {
        await store.append({ type: 'message', ts: i, message: { role: 'user', content: [{ type: 'text', text: `shot ${i}` }, shot] } });
        await store.append({ type: 'message', ts: i, message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }] } });
      }
      await store.append({ type: 'message', ts: 99, message: { role: 'user', content: [{ type: 'text', text: 'other' }, png(10, 10, 8)] } });
      await store.flush();
      const jsonl = await readFile(store.path, 'utf8');
      assert.equal(jsonl.includes(shot.data.slice(0, 40)), false, 'no image bytes in the JSONL');
      assert.ok((await stat(store.path)).size < 20_000, 'the JSONL stays small');
      const files = (await readdir(imagesDirFor(store.path))).sort();
      assert.equal(files.length, 2);
      for (const f of files) assert.match(f, /^[0-9a-f]{64}\.png$/);

      const loaded = await loadSession(store.path);
      assert.deepEqual(loaded.warnings, []);
      assert.deepEqual(loaded.messages[0]!.content[1], shot);
      assert.deepEqual(loaded.messages[100]!.content[1], png(10, 10, 8));
      const listed = await listSessions(dir);
      assert.equal(listed[0]!.title, 'shot 0');
    });

    it('tool-result images survive a resume and a fork (the fork gets its own copy); a missing file becomes a note and a warning', async () => {
      const store = await JsonlSessionStore.create(dir);
      for (const message of conversationWithImages()) await store.append({ type: 'message', ts: 1, message });
      await store.flush();
      const loaded = await loadSession(store.path);
      assert.deepEqual(loaded.messages, conversationWithImages());

      const fork = await forkSession(store.path, dir);
      await fork.store.flush();
      assert.deepEqual((await loadSession(fork.store.path)).messages, conversationWithImages());
      assert.notEqual(imagesDirFor(fork.store.path), imagesDirFor(store.path));

      const dropped = (await readdir(imagesDirFor(store.path)))[0]!;
      await unlink(join(imagesDirFor(store.path), dropped));
      const damaged = await loadSession(store.path);
      assert.equal(damaged.warnings.length, 1);
      assert.match(damaged.warnings[0]!, /is missing/);
      assert.equal(historyProblem(damaged.messages), undefined);
      const notes = JSON.stringify(damaged.messages);
      assert.match(notes, /no longer available/);
    });
  });
});
