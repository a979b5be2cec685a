// Whole turns of the real CLI (`node dist/cli.js`) with TURNSTONE_PROVIDER=bedrock
// and =vertex, against the scripted cloud endpoints of mock-cloud.ts: the cloud
// SDKs, their credential chains (AWS environment credentials; Google ADC through
// GOOGLE_APPLICATION_CREDENTIALS), a tool call and the reply, usage and cost.
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { replyFrames, streamReply } from '../../fixtures/mock-anthropic';
import { bedrockPath, bedrockStreamReply, MockBedrockServer, MockGoogleTokenServer, MockVertexServer, vertexPath } from '../../fixtures/mock-cloud';
import { runCli } from '../../support/run-cli';

const PROFILE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const USAGE = { input_tokens: 2_000, output_tokens: 100 };
// sonnet: $3 in, $15 out per million; two requests.
const COST = Math.round(((2 * 2_000 * 3 + 2 * 100 * 15) / 1e6) * 1e6) / 1e6;

describe('CLI on the cloud providers (TURNSTONE_PROVIDER=bedrock | vertex)', function () {
  this.timeout(120_000);
  let ws: string;

  beforeEach(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-cloud-cli-'));
    writeFileSync(path.join(ws, 'a.txt'), 'alpha\n');
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  describe('bedrock', () => {
    let server: MockBedrockServer;
    let env: Record<string, string>;
    beforeEach(async () => {
      server = await MockBedrockServer.start([PROFILE]);
      env = {
        TURNSTONE_PROVIDER: 'bedrock',
        AWS_REGION: 'us-west-2',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
        AWS_SHARED_CREDENTIALS_FILE: path.join(ws, 'no-credentials'),
        AWS_CONFIG_FILE: path.join(ws, 'no-config'),
        AWS_EC2_METADATA_DISABLED: 'true',
        ANTHROPIC_BEDROCK_BASE_URL: server.url,
      };
    });
    afterEach(() => server.close());

    it('T1: a whole turn (a tool call, its result sent back, the reply) with usage and cost in the json result', async () => {
      server.enqueue(
        bedrockStreamReply(replyFrames([{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } }], { usage: USAGE })),
        bedrockStreamReply(replyFrames([{ type: 'text', text: 'It says alpha.' }], { usage: USAGE })),
      );
      const run = await runCli(['-p', 'read a.txt', '--cwd', ws, '--output-format', 'json', '--model', PROFILE], { env });
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.equal(result.result, 'It says alpha.');
      assert.equal(result.is_error, false);
      assert.deepEqual(result.tool_results.map((r: { name: string; is_error: boolean }) => [r.name, r.is_error]), [['read_file', false]]);
      assert.match(result.tool_results[0].content, /alpha/);
      assert.equal(result.usage.input_tokens, 4_000);
      assert.equal(result.usage.output_tokens, 200);
      assert.equal(result.cost_usd, COST);
      assert.deepEqual(server.requests.map((r) => r.path), [bedrockPath(PROFILE), bedrockPath(PROFILE)]);
      assert.match(String(server.requests[0]!.headers['authorization']), /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request/);
      // The second request carries the tool result back.
      assert.match(server.requests[1]!.rawBody, /"tool_use_id":"toolu_1"/);
    });

    it('no region: exit 1 before any request, naming turnstone.bedrock.region and AWS_REGION', async () => {
      const { AWS_REGION: _region, ...rest } = env;
      const run = await runCli(['-p', 'hi', '--cwd', ws, '--model', PROFILE], { env: rest });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /turnstone: bedrock: no AWS region: set turnstone\.bedrock\.region \(or AWS_REGION\)/);
      assert.equal(server.requests.length, 0);
    });

    it('no credentials: the turn fails naming AWS_PROFILE and the key variables, and nothing is sent', async () => {
      const { AWS_ACCESS_KEY_ID: _id, AWS_SECRET_ACCESS_KEY: _secret, ...rest } = env;
      const run = await runCli(['-p', 'hi', '--cwd', ws, '--model', PROFILE, '--output-format', 'json'], { env: rest });
      assert.equal(run.code, 1);
      const result = JSON.parse(run.stdout);
      assert.equal(result.is_error, true);
      assert.match(result.result, /bedrock: no usable cloud credentials .*configure AWS credentials: AWS_PROFILE/);
      assert.equal(server.requests.length, 0);
    });
  });

  describe('vertex', () => {
    let server: MockVertexServer;
    let tokens: MockGoogleTokenServer;
    let env: Record<string, string>;
    beforeEach(async () => {
      server = await MockVertexServer.start([{ project: 'cli-project', region: 'us-east5', model: 'claude-sonnet-4-5@20250929' }]);
      tokens = await MockGoogleTokenServer.start();
      env = {
        TURNSTONE_PROVIDER: 'vertex',
        CLOUD_ML_REGION: 'us-east5',
        ANTHROPIC_VERTEX_PROJECT_ID: 'cli-project',
        GOOGLE_APPLICATION_CREDENTIALS: tokens.writeCredentials(ws),
        CLOUDSDK_CONFIG: path.join(ws, 'gcloud'),
        METADATA_SERVER_DETECTION: 'none',
        ANTHROPIC_VERTEX_BASE_URL: `${server.url}/v1`,
      };
    });
    afterEach(async () => {
      await server.close();
      await tokens.close();
    });

    it('T1: a whole turn with a tool call, our model id mapped to the Vertex one, usage and cost', async () => {
      server.enqueue(
        streamReply([{ type: 'tool_use', id: 'toolu_v', name: 'read_file', input: { path: 'a.txt' } }], { usage: USAGE }),
        streamReply([{ type: 'text', text: 'Vertex read alpha.' }], { usage: USAGE }),
      );
      const run = await runCli(['-p', 'read a.txt', '--cwd', ws, '--output-format', 'json', '--model', 'claude-sonnet-4-5'], { env });
      assert.equal(run.code, 0, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.equal(result.result, 'Vertex read alpha.');
      assert.equal(result.cost_usd, COST);
      assert.deepEqual(server.requests.map((r) => r.path), [vertexPath('cli-project', 'us-east5', 'claude-sonnet-4-5@20250929'), vertexPath('cli-project', 'us-east5', 'claude-sonnet-4-5@20250929')]);
      assert.match(String(server.requests[0]!.headers['authorization']), /^Bearer ya29\.mock-token-\d+$/);
    });

    it('no region: exit 1 before any request, naming turnstone.vertex.region and CLOUD_ML_REGION', async () => {
      const { CLOUD_ML_REGION: _region, ...rest } = env;
      const run = await runCli(['-p', 'hi', '--cwd', ws], { env: rest });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /turnstone: vertex: no Google Cloud region: set turnstone\.vertex\.region \(or CLOUD_ML_REGION\)/);
      assert.equal(server.requests.length, 0);
    });
  });
});
