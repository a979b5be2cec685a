// Claude on Amazon Bedrock through the real @anthropic-ai/bedrock-sdk, pointed at a
// local endpoint that answers in Bedrock's binary event stream (mock-cloud.ts): the
// SDK signs each request (SigV4) with the AWS credentials of the environment and
// decodes the frames; our normaliser and step runner do the rest, as for Anthropic.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AbortedError } from '../../../src/runtime/cancellation';
import { BedrockModelClient } from '../../../src/runtime/providers/bedrock';
import { cloudModelId, resolveBedrockConfig } from '../../../src/runtime/providers/cloud-config';
import { createModelClient } from '../../../src/runtime/providers';
import { type BedrockClientOptions } from '../../../src/runtime/providers/options';
import { costUsd, priceFor } from '../../../src/runtime/spend/usage';
import { ModelError } from '../../../src/runtime/types';
import { jsonMessageReply, type MockReply, replyFrames } from '../../fixtures/mock-anthropic';
import { BEDROCK_REQUEST_ID, bedrockPath, bedrockErrorReply, bedrockExceptionMessage, bedrockStreamBytes, bedrockStreamReply, MockBedrockServer } from '../../fixtures/mock-cloud';
import { assemble, collect, collectError, request, signal, types } from './helpers';

const PROFILE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const MAPPED = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const UNMAPPED = 'claude-sonnet-5-5';

/** The variables of AWS's credential chain this test sets or clears, restored after each test. */
const AWS_VARS = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_PROFILE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_BEARER_TOKEN_BEDROCK',
  'AWS_SHARED_CREDENTIALS_FILE',
  'AWS_CONFIG_FILE',
  'AWS_EC2_METADATA_DISABLED',
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'ANTHROPIC_BEDROCK_BASE_URL',
];

describe('providers/bedrock: Claude on Amazon Bedrock through the Bedrock SDK', () => {
  let mock: MockBedrockServer;
  let saved: Record<string, string | undefined>;
  let tmp: string;

  before(async () => {
    mock = await MockBedrockServer.start([PROFILE, MAPPED, UNMAPPED]);
  });
  after(() => mock.close());
  beforeEach(() => {
    mock.reset();
    saved = Object.fromEntries(AWS_VARS.map((k) => [k, process.env[k]]));
    for (const k of AWS_VARS) delete process.env[k];
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-bedrock-'));
    // Nothing of this machine's own AWS set-up may take part.
    process.env['AWS_SHARED_CREDENTIALS_FILE'] = path.join(tmp, 'credentials');
    process.env['AWS_CONFIG_FILE'] = path.join(tmp, 'config');
    process.env['AWS_EC2_METADATA_DISABLED'] = 'true';
    process.env['AWS_ACCESS_KEY_ID'] = 'AKIDEXAMPLE';
    process.env['AWS_SECRET_ACCESS_KEY'] = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
  });
  afterEach(() => {
    for (const k of AWS_VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  const client = (extra: BedrockClientOptions = {}) => new BedrockModelClient({ region: 'us-east-1', baseURL: mock.url, retry: { baseDelayMs: 0 }, ...extra });

  it('S1: text streams from the event stream; the request is SigV4-signed for bedrock in the region and carries anthropic_version in the body', async () => {
    mock.enqueue(bedrockStreamReply(replyFrames([{ type: 'text', text: 'Hello from Bedrock', chunks: 3 }], { usage: { input_tokens: 12, output_tokens: 4 } })));
    const events = await collect(client({ region: 'eu-west-3' }).stream(request({ model: PROFILE }), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Hello from Bedrock' }]);
    assert.equal(assemble(events).stopReason, 'end_turn');
    const sent = mock.requests[0]!;
    assert.equal(sent.path, bedrockPath(PROFILE));
    assert.match(String(sent.headers['authorization']), /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-3\/bedrock\/aws4_request, SignedHeaders=.*, Signature=[0-9a-f]{64}$/);
    const body = mock.bodies[0]!;
    // Bedrock takes the API version from the body: the SDK moves its anthropic-version header there.
    assert.equal(typeof body['anthropic_version'], 'string');
    assert.equal(sent.headers['anthropic-version'], undefined);
    assert.equal(body['model'], undefined, 'the model is in the path, not the body');
    assert.equal(body['stream'], undefined);
  });

  it('S2: a tool call arrives whole (streamed input fragments joined), with its stop reason', async () => {
    mock.enqueue(bedrockStreamReply(replyFrames([{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_b1', name: 'read_file', input: { path: 'src/a.ts' } }])));
    const events = await collect(client().stream(request({ model: PROFILE }), signal()));
    const tool = events.find((e) => e.type === 'tool_use');
    assert.deepEqual(tool, { type: 'tool_use', id: 'toolu_b1', name: 'read_file', inputJson: '{"path":"src/a.ts"}' });
    assert.equal(assemble(events).stopReason, 'tool_use');
    assert.deepEqual((mock.bodies[0]!['tools'] as Array<{ name: string }>).map((t) => t.name), ['read_file', 'bash']);
  });

  it('S2: thinking and its signature come back whole; the request asks for thinking and keeps the S7 cache breakpoints', async () => {
    mock.enqueue(bedrockStreamReply(replyFrames([{ type: 'thinking', thinking: 'Let me think about it.', signature: 'sig-bedrock', chunks: 3 }, { type: 'text', text: 'Done.' }])));
    const events = await collect(client().stream(request({ model: PROFILE, thinkingBudgetTokens: 2048, maxTokens: 8192 }), signal()));
    assert.deepEqual(assemble(events).content, [
      { type: 'thinking', thinking: 'Let me think about it.', signature: 'sig-bedrock' },
      { type: 'text', text: 'Done.' },
    ]);
    assert.ok(types(events).includes('thinking_delta'));
    const body = mock.bodies[0]!;
    assert.deepEqual(body['thinking'], { type: 'enabled', budget_tokens: 2048 });
    assert.deepEqual((body['system'] as Array<{ cache_control?: unknown }>)[0]!.cache_control, { type: 'ephemeral' });
  });

  it('images go in the request as base64 image blocks, as to Anthropic', async () => {
    mock.enqueue(bedrockStreamReply(replyFrames([{ type: 'text', text: 'A red square.' }])));
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0KGgo=', width: 1, height: 1 };
    await collect(client().stream(request({ model: PROFILE, messages: [{ role: 'user', content: [image, { type: 'text', text: 'what is this?' }] }] }), signal()));
    const content = (mock.bodies[0]!['messages'] as Array<{ content: unknown[] }>)[0]!.content;
    assert.deepEqual(content[0], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } });
  });

  it('complete(): the non-streaming request (compaction summaries) goes to /invoke and comes back whole', async () => {
    mock.enqueue(jsonMessageReply([{ type: 'text', text: 'A summary.' }], { usage: { input_tokens: 50, output_tokens: 7 } }));
    const response = await client().complete(request({ model: PROFILE }), signal());
    assert.deepEqual(response.content, [{ type: 'text', text: 'A summary.' }]);
    assert.equal(response.usage.output_tokens, 7);
    assert.equal(mock.requests[0]!.path, bedrockPath(PROFILE, false));
  });

  it('C4: usage (with prompt-cache reads and writes) is reported and priced by the model family', async () => {
    const usage = { input_tokens: 1_000, output_tokens: 200, cache_read_input_tokens: 5_000, cache_creation_input_tokens: 2_000 };
    mock.enqueue(bedrockStreamReply(replyFrames([{ type: 'text', text: 'ok' }], { usage })));
    const events = await collect(client().stream(request({ model: PROFILE }), signal()));
    const last = events.filter((e) => e.type === 'usage').at(-1);
    assert.ok(last?.type === 'usage');
    assert.deepEqual(last.usage, usage);
    assert.deepEqual(events.find((e) => e.type === 'prompt_cache'), { type: 'prompt_cache', cacheReadInputTokens: 5_000, cacheCreationInputTokens: 2_000 });
    // A Bedrock inference profile is priced as its family (sonnet: $3 in, $15 out, reads 0.1x, writes 1.25x).
    assert.equal(costUsd(last.usage, priceFor(PROFILE)), (1_000 * 3 + 200 * 15 + 5_000 * 0.3 + 2_000 * 3.75) / 1e6);
  });

  it('S6: a 500 and a 429 ThrottlingException are retried (each reported), then the reply is kept', async () => {
    mock.enqueue(
      bedrockErrorReply(500, 'InternalServerException', 'Internal server error'),
      bedrockErrorReply(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'),
      bedrockStreamReply(replyFrames([{ type: 'text', text: 'third time' }])),
    );
    const events = await collect(client().stream(request({ model: PROFILE }), signal()));
    const retries = events.filter((e) => e.type === 'retrying');
    assert.equal(retries.length, 2);
    assert.match(retries[0]!.type === 'retrying' ? retries[0]!.reason : '', /HTTP 500, retryable/);
    assert.match(retries[1]!.type === 'retrying' ? retries[1]!.reason : '', /Too many requests.*HTTP 429, retryable/);
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'third time' }]);
    assert.equal(mock.requests.length, 3);
    assert.equal(mock.requests[0]!.rawBody, mock.requests[2]!.rawBody);
  });

  it('S6: a throttlingException frame mid-stream ("Too many tokens", a throttle, not an overlong prompt) resets what was shown and retries the step', async () => {
    const head = replyFrames([{ type: 'text', text: 'partial answer' }]).slice(0, 3);
    mock.enqueue(
      bedrockStreamReply(head, { after: [bedrockExceptionMessage('throttlingException', 'Too many tokens, please wait before trying again.')] }),
      bedrockStreamReply(replyFrames([{ type: 'text', text: 'whole answer' }])),
    );
    const events = await collect(client().stream(request({ model: PROFILE }), signal()));
    assert.ok(types(events).includes('step_reset'));
    assert.match(JSON.stringify(events.find((e) => e.type === 'retrying')), /throttlingException/);
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'whole answer' }]);
  });

  it('S6: a connection reset inside an event-stream frame is retried, never keeping the half-read text', async () => {
    const frames = replyFrames([{ type: 'text', text: 'The quick brown fox jumps over the lazy dog.', chunks: 4 }]);
    const bytes = bedrockStreamBytes(frames);
    mock.enqueue(bedrockStreamReply(frames, { cutAfterBytes: Math.floor(bytes.length * 0.6) }), bedrockStreamReply(frames));
    const events = await collect(client().stream(request({ model: PROFILE }), signal()));
    assert.ok(types(events).includes('retrying'));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'The quick brown fox jumps over the lazy dog.' }]);
  });

  it('T8: aborting mid-stream ends with AbortedError and no retry', async () => {
    // Only the first frames, on a stream that stays open: the abort is what ends it.
    const frames = replyFrames([{ type: 'text', text: 'a long reply in four parts', chunks: 4 }]);
    mock.enqueue({ ...bedrockStreamReply(frames.slice(0, 3)), holdOpen: true } as MockReply);
    const controller = new AbortController();
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const e of client().stream(request({ model: PROFILE }), controller.signal)) {
        seen.push(e.type);
        if (e.type === 'text_delta') controller.abort();
      }
    } catch (err) {
      caught = err;
    }
    assert.ok(caught instanceof AbortedError, `an abort is an AbortedError, got ${String(caught)}`);
    assert.deepEqual(seen, ['usage', 'text_delta']);
    assert.equal(mock.requests.length, 1);
  });

  it('model ids: ours are mapped where the Bedrock id is certain; inference profiles and unknown ids go as written', async () => {
    assert.equal(cloudModelId('bedrock', 'claude-sonnet-4-5'), MAPPED);
    assert.equal(cloudModelId('bedrock', 'claude-sonnet-4-5-20250929'), MAPPED);
    assert.equal(cloudModelId('bedrock', PROFILE), PROFILE);
    assert.equal(cloudModelId('bedrock', UNMAPPED), UNMAPPED);
    mock.enqueue(bedrockStreamReply(replyFrames([{ type: 'text', text: 'mapped' }])));
    await collect(client().stream(request({ model: 'claude-sonnet-4-5' }), signal()));
    assert.equal(mock.requests[0]!.path, bedrockPath(MAPPED));
  });

  it('an id Bedrock does not know (or that needs an inference profile) says to set turnstone.model, without retrying', async () => {
    mock.enqueue(bedrockErrorReply(400, 'ValidationException', 'The provided model identifier is invalid.'));
    const { error } = await collectError(client().stream(request({ model: UNMAPPED }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /model identifier is invalid.*set turnstone\.model \(or --model\) to a Bedrock model id or inference profile.*sent: claude-sonnet-5-5/);
    assert.equal(mock.requests.length, 1);
  });

  it('rejected credentials (403) name the AWS credential chain, not an API key, and carry the request id', async () => {
    mock.enqueue(bedrockErrorReply(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.'));
    const { error } = await collectError(client().stream(request({ model: PROFILE }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /security token included in the request is invalid.*check the AWS credentials \(AWS_PROFILE, AWS_ACCESS_KEY_ID/);
    assert.equal(error.details.requestId, BEDROCK_REQUEST_ID);
    assert.doesNotMatch(error.message, /wJalrXUtnFEMI|AKIDEXAMPLE/);
  });

  it('no credentials anywhere in the chain: a config error naming AWS_PROFILE and the key variables, and nothing sent', async () => {
    delete process.env['AWS_ACCESS_KEY_ID'];
    delete process.env['AWS_SECRET_ACCESS_KEY'];
    const { error } = await collectError(client().stream(request({ model: PROFILE }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /^bedrock: no usable cloud credentials \(.+\): configure AWS credentials: AWS_PROFILE .*AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    assert.equal(mock.requests.length, 0);
  });

  it('no region: a config error naming turnstone.bedrock.region and AWS_REGION, before any request', async () => {
    const { error } = await collectError(createModelClient({ provider: 'bedrock', baseURL: mock.url }).stream(request({ model: PROFILE }), signal()));
    assert.ok(error instanceof ModelError);
    assert.equal(error.kind, 'config');
    assert.match(error.message, /no AWS region: set turnstone\.bedrock\.region \(or AWS_REGION\)/);
    assert.equal(mock.requests.length, 0);
  });

  it('a malformed region is named as such; AWS_REGION, then AWS_DEFAULT_REGION, fill in for the setting', () => {
    assert.throws(() => resolveBedrockConfig({ region: 'virginia' }, {}), (e: ModelError) => e.kind === 'config' && /'virginia' is not an AWS region name: set turnstone\.bedrock\.region/.test(e.message));
    assert.equal(resolveBedrockConfig({}, { AWS_REGION: 'eu-central-1', AWS_DEFAULT_REGION: 'us-west-2' }).region, 'eu-central-1');
    assert.equal(resolveBedrockConfig({}, { AWS_DEFAULT_REGION: 'us-west-2' }).region, 'us-west-2');
    assert.equal(resolveBedrockConfig({ region: 'ap-southeast-2' }, { AWS_REGION: 'eu-central-1' }).region, 'ap-southeast-2');
  });
});
