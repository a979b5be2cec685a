// contracts.md "Images": `--image <file>` (repeatable) attaches images to the
// prompt; read_file of a PNG reaches the model as an image in the tool result.
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makePng } from '../../fixtures/images';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { MockOpenAIServer, openaiErrorReply, openaiTextReply, openaiToolCallsReply } from '../../fixtures/mock-openai';
import { runCli } from '../../support/run-cli';

type Block = { type: string; source?: { type: string; media_type: string; data: string }; content?: unknown; text?: string };
const messagesOf = (body: unknown) => (body as { messages: Array<{ role: string; content: Block[] }> }).messages;

describe('CLI: images (node dist/cli.js against the mock API)', function () {
  this.timeout(60_000);
  let server: MockAnthropicServer;
  let tmp: string;
  let ws: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockAnthropicServer.start();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-img-'));
    ws = path.join(tmp, 'ws');
    mkdirSync(ws);
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli', HOME: tmp };
  });
  afterEach(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('--image (repeatable) puts base64 image blocks after the prompt text; the session stores them beside it and a resume sends them again', async () => {
    writeFileSync(path.join(tmp, 'a.png'), makePng(40, 30, 1));
    writeFileSync(path.join(tmp, 'b.png'), makePng(8, 6, 2));
    const session = path.join(tmp, 's', 'run.jsonl');
    server.enqueue(textReply('I see a gradient.'));
    const run = await runCli(['-p', 'what is on these?', '--cwd', ws, '--image', path.join(tmp, 'a.png'), '--image', path.join(tmp, 'b.png'), '--session', session], { env });
    assert.equal(run.code, 0, run.stderr);
    const content = messagesOf(server.bodies[0])[0]!.content;
    assert.equal(content[0]!.type, 'text');
    assert.equal(content[0]!.text, 'what is on these?');
    assert.deepEqual(content[1]!.source, { type: 'base64', media_type: 'image/png', data: makePng(40, 30, 1).toString('base64') });
    assert.deepEqual(content[2]!.source, { type: 'base64', media_type: 'image/png', data: makePng(8, 6, 2).toString('base64') });

    assert.equal(readFileSync(session, 'utf8').includes(makePng(40, 30, 1).toString('base64').slice(0, 60)), false);
    assert.equal(readdirSync(path.join(tmp, 's', 'run.images')).length, 2);
    server.enqueue(textReply('Still a gradient.'));
    const resumed = await runCli(['-p', 'and now?', '--cwd', ws, '--session', session], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(messagesOf(server.bodies[1])[0]!.content[1]!.source, content[1]!.source);
  });

  it('refuses a file that is not an image, and a missing one, with exit 2 and one clear line, before any request', async () => {
    writeFileSync(path.join(tmp, 'fake.png'), '<html>nope</html>');
    const fake = await runCli(['-p', 'look', '--cwd', ws, '--image', path.join(tmp, 'fake.png')], { env });
    assert.equal(fake.code, 2);
    assert.match(fake.stderr, /--image .*fake\.png is not a PNG, JPEG, GIF or WebP image/);
    const missing = await runCli(['-p', 'look', '--cwd', ws, '--image', path.join(tmp, 'nope.png')], { env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--image .*nope\.png cannot be read \(ENOENT\)/);
    assert.equal(server.bodies.length, 0);
    assert.ok(!existsSync(path.join(ws, '.turnstone')));
  });

  it('read_file of a PNG: the tool result carries the image block after its text line', async () => {
    writeFileSync(path.join(ws, 'ui.png'), makePng(120, 80, 3));
    server.enqueue(toolUseReply([{ id: 'toolu_1', name: 'read_file', input: { path: 'ui.png' } }]));
    server.enqueue(textReply('The button is misaligned.'));
    const run = await runCli(['-p', 'read ui.png', '--cwd', ws, '--allow', 'read_file'], { env });
    assert.equal(run.code, 0, run.stderr);
    const result = messagesOf(server.bodies[1])[2]!.content[0]!;
    assert.equal(result.type, 'tool_result');
    const parts = result.content as Block[];
    assert.match(String(parts[0]!.text), /^ui\.png: PNG 120×80/);
    assert.deepEqual(parts[1]!.source, { type: 'base64', media_type: 'image/png', data: makePng(120, 80, 3).toString('base64') });
  });

  it('--help lists --image', async () => {
    const help = await runCli(['--help']);
    assert.match(help.stdout, /--image <file>\s+attach a PNG, JPEG, GIF or WebP image/);
  });
});

describe('CLI: images with the OpenAI-compatible provider (node dist/cli.js against the mock)', function () {
  this.timeout(60_000);
  let server: MockOpenAIServer;
  let tmp: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await MockOpenAIServer.start();
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cli-img-oai-'));
    env = { TURNSTONE_PROVIDER: 'openai-compatible', OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-local', HOME: tmp };
  });
  afterEach(async () => {
    await server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('--image goes as an image_url data URL; read_file images follow the tool message in a user message', async () => {
    writeFileSync(path.join(tmp, 'a.png'), makePng(16, 9, 1));
    writeFileSync(path.join(tmp, 'ui.png'), makePng(12, 8, 2));
    server.enqueue(openaiToolCallsReply([{ id: 'c1', name: 'read_file', input: { path: 'ui.png' } }]), openaiTextReply('Both seen.'));
    const run = await runCli(['-p', 'compare', '--cwd', tmp, '--image', path.join(tmp, 'a.png'), '--allow', 'read_file', '--model', 'llava:13b'], { env });
    assert.equal(run.code, 0, run.stderr);
    type Chat = { role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> };
    const first = (server.requests[0]!.body as { messages: Chat[] }).messages;
    const user = first.find((m) => m.role === 'user')!;
    assert.deepEqual(user.content, [
      { type: 'text', text: 'compare' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${makePng(16, 9, 1).toString('base64')}` } },
    ]);
    const second = (server.requests[1]!.body as { messages: Chat[] }).messages;
    const toolAt = second.findIndex((m) => m.role === 'tool');
    assert.match(String(second[toolAt]!.content), /ui\.png: PNG 12×8/);
    const after = second[toolAt + 1]!;
    assert.equal(after.role, 'user');
    const parts = after.content as Array<{ type: string; image_url?: { url: string } }>;
    assert.equal(parts.find((p) => p.type === 'image_url')?.image_url?.url, `data:image/png;base64,${makePng(12, 8, 2).toString('base64')}`);
  });

  it('a server that rejects images: one clear line naming the model, not a raw 400', async () => {
    writeFileSync(path.join(tmp, 'a.png'), makePng(4, 4));
    server.enqueue(openaiErrorReply(400, 'llama3 does not support image input'));
    const run = await runCli(['-p', 'look', '--cwd', tmp, '--image', path.join(tmp, 'a.png'), '--model', 'llama3:8b'], { env });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /The model "llama3:8b" did not accept the images in this conversation; choose a model with image \(vision\) support or remove the images/);
  });
});
