// Claude on Google Vertex AI through the real @anthropic-ai/vertex-sdk, pointed at a
// local endpoint, with Google's application default credentials found the standard
// way (GOOGLE_APPLICATION_CREDENTIALS) and a local token exchange (mock-cloud.ts).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cloudModelId, resolveVertexConfig } from '../../../src/runtime/providers/cloud-config';
import { createModelClient } from '../../../src/runtime/providers';
import { type VertexClientOptions } from '../../../src/runtime/providers/options';
import { VertexModelClient } from '../../../src/runtime/providers/vertex';
import { type ModelError } from '../../../src/runtime/types';
import { errorReply, replyFrames, streamReply } from '../../fixtures/mock-anthropic';
import { MockGoogleTokenServer, MockVertexServer, PROJECT_FROM_CREDENTIALS, vertexPath } from '../../fixtures/mock-cloud';
import { assemble, collect, collectError, request, signal } from './helpers';

const PROJECT = 'turnstone-test';
const REGION = 'us-east5';
const MAPPED = 'claude-sonnet-4-5@20250929';
const UNMAPPED = 'claude-sonnet-5-5';

const GOOGLE_VARS = [
  'GOOGLE_APPLICATION_CREDENTIALS',
  'CLOUDSDK_CONFIG',
  'METADATA_SERVER_DETECTION',
  'CLOUD_ML_REGION',
  'GOOGLE_CLOUD_LOCATION',
  'ANTHROPIC_VERTEX_PROJECT_ID',
  'GOOGLE_CLOUD_PROJECT',
  'GCLOUD_PROJECT',
  'ANTHROPIC_VERTEX_BASE_URL',
];

describe('providers/vertex: Claude on Google Vertex AI through the Vertex SDK', () => {
  let mock: MockVertexServer;
  let tokens: MockGoogleTokenServer;
  let saved: Record<string, string | undefined>;
  let tmp: string;

  before(async () => {
    mock = await MockVertexServer.start([
      { project: PROJECT, region: REGION, model: MAPPED },
      { project: PROJECT, region: REGION, model: UNMAPPED },
      { project: 'from-env', region: 'europe-west1', model: MAPPED },
      { project: PROJECT_FROM_CREDENTIALS, region: REGION, model: MAPPED },
    ]);
    tokens = await MockGoogleTokenServer.start();
  });
  after(async () => {
    await mock.close();
    await tokens.close();
  });
  beforeEach(() => {
    mock.reset();
    saved = Object.fromEntries(GOOGLE_VARS.map((k) => [k, process.env[k]]));
    for (const k of GOOGLE_VARS) delete process.env[k];
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-vertex-'));
    // Nothing of this machine's own gcloud set-up may take part, and no metadata server is probed.
    process.env['CLOUDSDK_CONFIG'] = path.join(tmp, 'gcloud');
    process.env['METADATA_SERVER_DETECTION'] = 'none';
    process.env['GOOGLE_APPLICATION_CREDENTIALS'] = tokens.writeCredentials(tmp);
  });
  afterEach(() => {
    for (const k of GOOGLE_VARS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  const client = (extra: VertexClientOptions = {}) => new VertexModelClient({ region: REGION, projectId: PROJECT, baseURL: `${mock.url}/v1`, retry: { baseDelayMs: 0 }, ...extra });

  it('S1: text streams from streamRawPredict, authorised with the token the ADC exchange returned; the version goes in the body', async () => {
    mock.enqueue(streamReply([{ type: 'text', text: 'Hello from Vertex', chunks: 3 }]));
    const events = await collect(client().stream(request({ model: 'claude-sonnet-4-5' }), signal()));
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'Hello from Vertex' }]);
    const sent = mock.requests[0]!;
    assert.equal(sent.path, vertexPath(PROJECT, REGION, MAPPED));
    assert.equal(sent.headers['authorization'], `Bearer ${tokens.tokens().at(-1)}`);
    assert.equal(tokens.exchanges.at(-1)!.get('subject_token'), 'header.payload.signature');
    assert.equal(typeof mock.bodies[0]!['anthropic_version'], 'string');
    assert.equal(mock.bodies[0]!['model'], undefined, 'the model is in the path, not the body');
    assert.equal(sent.headers['x-api-key'], undefined);
  });

  it('S2: a tool call arrives whole, with its stop reason', async () => {
    mock.enqueue(streamReply([{ type: 'tool_use', id: 'toolu_v1', name: 'bash', input: { command: 'ls -la' } }]));
    const events = await collect(client().stream(request({ model: MAPPED }), signal()));
    assert.deepEqual(events.find((e) => e.type === 'tool_use'), { type: 'tool_use', id: 'toolu_v1', name: 'bash', inputJson: '{"command":"ls -la"}' });
    assert.equal(assemble(events).stopReason, 'tool_use');
  });

  it('C4: usage with prompt-cache reads and writes is reported', async () => {
    const usage = { input_tokens: 800, output_tokens: 40, cache_read_input_tokens: 3_000, cache_creation_input_tokens: 1_000 };
    mock.enqueue({ kind: 'sse', frames: replyFrames([{ type: 'text', text: 'ok' }], { usage }) });
    const events = await collect(client().stream(request({ model: MAPPED }), signal()));
    const last = events.filter((e) => e.type === 'usage').at(-1);
    assert.deepEqual(last, { type: 'usage', usage });
  });

  it('S6: a 429 is retried and the retry is reported', async () => {
    mock.enqueue(errorReply(429, 'rate_limit_error', 'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model'), streamReply([{ type: 'text', text: 'after the quota' }]));
    const events = await collect(client().stream(request({ model: MAPPED }), signal()));
    assert.equal(events.filter((e) => e.type === 'retrying').length, 1);
    assert.deepEqual(assemble(events).content, [{ type: 'text', text: 'after the quota' }]);
  });

  it('model ids: ours are mapped to claude-…@date where certain; other ids go as written, and one Vertex does not know names turnstone.model', async () => {
    assert.equal(cloudModelId('vertex', 'claude-opus-4-1'), 'claude-opus-4-1@20250805');
    assert.equal(cloudModelId('vertex', 'claude-sonnet-4-5@20250929'), 'claude-sonnet-4-5@20250929');
    mock.enqueue({ kind: 'error', status: 404, body: { error: { code: 404, message: `Publisher Model \`projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/${UNMAPPED}\` not found.`, status: 'NOT_FOUND' } } });
    const { error } = await collectError(client().stream(request({ model: UNMAPPED }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /not found.*set turnstone\.model \(or --model\) to a Vertex AI model id available in this region and project.*sent: claude-sonnet-5-5/);
  });

  it('region and project come from CLOUD_ML_REGION and ANTHROPIC_VERTEX_PROJECT_ID when the settings are empty', async () => {
    process.env['CLOUD_ML_REGION'] = 'europe-west1';
    process.env['ANTHROPIC_VERTEX_PROJECT_ID'] = 'from-env';
    process.env['GOOGLE_CLOUD_PROJECT'] = 'not-this-one';
    mock.enqueue(streamReply([{ type: 'text', text: 'env' }]));
    await collect(createModelClient({ provider: 'vertex', baseURL: `${mock.url}/v1`, retry: { baseDelayMs: 0 } }).stream(request({ model: MAPPED }), signal()));
    assert.equal(mock.requests[0]!.path, vertexPath('from-env', 'europe-west1', MAPPED));
  });

  it('no region: a config error naming turnstone.vertex.region and CLOUD_ML_REGION, before any request', async () => {
    const { error } = await collectError(client({ region: '' }).stream(request({ model: MAPPED }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /^vertex: no Google Cloud region: set turnstone\.vertex\.region \(or CLOUD_ML_REGION\)/);
    assert.equal(mock.requests.length, 0);
    assert.throws(() => resolveVertexConfig({ region: 'Iowa' }, {}), (e: ModelError) => e.kind === 'config' && /'Iowa' is not a Vertex AI region name/.test(e.message));
  });

  it("without a project setting, the credentials' own project is used", async () => {
    mock.enqueue(streamReply([{ type: 'text', text: 'found' }]));
    await collect(client({ projectId: '' }).stream(request({ model: MAPPED }), signal()));
    assert.equal(mock.requests[0]!.path, vertexPath(PROJECT_FROM_CREDENTIALS, REGION, MAPPED));
  });

  it('no project (none set, none in the credentials): a config error naming turnstone.vertex.projectId and its variables', async () => {
    process.env['GOOGLE_APPLICATION_CREDENTIALS'] = tokens.writeCredentials(tmp, { project: false });
    const { error } = await collectError(client({ projectId: '' }).stream(request({ model: MAPPED }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /^vertex: no Google Cloud project .*set turnstone\.vertex\.projectId \(or ANTHROPIC_VERTEX_PROJECT_ID \/ GOOGLE_CLOUD_PROJECT\)/);
    assert.equal(mock.requests.length, 0);
  });

  it('no credentials: a config error naming gcloud ADC and GOOGLE_APPLICATION_CREDENTIALS, and nothing sent', async () => {
    process.env['GOOGLE_APPLICATION_CREDENTIALS'] = path.join(tmp, 'missing.json');
    const { error } = await collectError(client().stream(request({ model: MAPPED }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /^vertex: no Google credentials \(.*missing\.json.*\): configure Google application default credentials: run `gcloud auth application-default login`, or set GOOGLE_APPLICATION_CREDENTIALS/);
    assert.equal(mock.requests.length, 0);
  });

  it('rejected credentials (403) name the Google credentials, not an API key', async () => {
    mock.enqueue({ kind: 'error', status: 403, body: { error: { code: 403, message: "Permission 'aiplatform.endpoints.predict' denied on resource", status: 'PERMISSION_DENIED' } } });
    const { error } = await collectError(client().stream(request({ model: MAPPED }), signal()));
    assert.equal(error.kind, 'config');
    assert.match(error.message, /denied on resource.*check the Google credentials/);
    assert.doesNotMatch(error.message, /ya29\./);
  });
});
