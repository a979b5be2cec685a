// Issue 42, items 2 and 6: secrets by kind, not by name. With --provider bedrock, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN and AWS_BEARER_TOKEN_BEDROCK reached every command (sandboxed too) and so the model; on a
// runner, so did the Action's inputs and the runner's tokens. Commands and hooks now lose every variable that
// looks like a credential unless turnstone.bash.env.passthrough names it; the provider's own key never passes.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { credentialNames, looksLikeCredential, withoutCredentials } from '../../../src/runtime/policy/secret-env';
import { childEnv, commandEnv, NodeShell } from '../../../src/tools/node-adapter';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

/** What a CI runner with --provider bedrock holds, and what commands need. */
const RUNNER_ENV: Record<string, string> = {
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE0000',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-0000',
  AWS_SESSION_TOKEN: 'aws-session-0000',
  AWS_BEARER_TOKEN_BEDROCK: 'bedrock-bearer-0000',
  GOOGLE_APPLICATION_CREDENTIALS: '/home/runner/gcp-sa.json',
  AZURE_CLIENT_SECRET: 'azure-secret-0000',
  ACTIONS_RUNTIME_TOKEN: 'actions-runtime-0000',
  ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc-request-0000',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc.example/token?x=1',
  INPUT_ANTHROPIC_API_KEY: 'sk-ant-input-0000',
  INPUT_GITHUB_TOKEN: 'ghs_input0000',
  GITHUB_TOKEN: 'ghs_job0000',
  DATABASE_PASSWORD: 'db-pass-0000',
  NPM_TOKEN: 'npm-token-0000',
  // Not credentials: kept.
  AWS_REGION: 'us-east-1',
  AWS_PROFILE: 'ci',
  GITHUB_REPOSITORY: 'octo-org/widgets',
  CI: 'true',
};
const SECRETS = Object.keys(RUNNER_ENV).filter((n) => !['AWS_REGION', 'AWS_PROFILE', 'GITHUB_REPOSITORY', 'CI'].includes(n));

describe('tools: commands and hooks lose credentials by kind (issue 42.2, 42.6)', () => {
  it('every credential-looking name goes, whatever its vendor; region, profile and the like stay', () => {
    for (const name of SECRETS) assert.ok(looksLikeCredential(name), `${name} looks like a credential`);
    for (const name of ['SLACKTOKEN', 'MYAPIKEY', 'SENTRY_AUTH_TOKEN', 'DB_PASS', 'GH_PAT']) assert.ok(looksLikeCredential(name), `${name} looks like a credential`);
    // Settings tools need, and names that say where something lives (removing a path protects nothing); git's
    // environment config stays whole (GIT_CONFIG_COUNT without its GIT_CONFIG_KEY_0 makes every git command fail).
    const plain = ['PATH', 'HOME', 'AWS_REGION', 'AWS_PROFILE', 'GITHUB_REPOSITORY', 'CI', 'LANG', 'TOKENIZERS_PARALLELISM', 'PYTHON_KEYRING_BACKEND', 'GNOME_KEYRING_CONTROL', 'PASSWORD_STORE_DIR', 'AWS_SHARED_CREDENTIALS_FILE', 'SSH_AUTH_SOCK', 'GIT_CONFIG_KEY_0', 'KEYBOARD_LAYOUT', 'MONKEY_PATCH'];
    for (const name of plain) assert.equal(looksLikeCredential(name), false, name);
    assert.deepEqual(credentialNames(RUNNER_ENV).sort(), [...SECRETS].sort());
    const env = withoutCredentials(RUNNER_ENV, ['NPM_TOKEN']);
    assert.equal(env.NPM_TOKEN, 'npm-token-0000', 'turnstone.bash.env.passthrough keeps a name it lists');
    assert.equal(env.AWS_SECRET_ACCESS_KEY, undefined);
    assert.equal(env.AWS_REGION, 'us-east-1');
  });

  it("the provider's own key never passes to a command or a hook, even when passthrough names it", () => {
    const base = { ANTHROPIC_API_KEY: 'sk-ant-0000', OPENAI_API_KEY: 'sk-0000', PATH: '/usr/bin' };
    for (const env of [commandEnv(base, {}, ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY']), childEnv(base, ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'])]) {
      assert.deepEqual(Object.keys(env).filter((k) => k.endsWith('_API_KEY')), []);
      assert.equal(env.PATH, '/usr/bin');
    }
  });

  it('a real command sees none of them, and sees a passthrough one', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, RUNNER_ENV);
    try {
      const dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'turnstone-secret-env-')));
      try {
        const shell = new NodeShell({ envPassthrough: () => ['NPM_TOKEN'] });
        const r = await shell.run('env', { cwd: dir, timeoutMs: 20_000 });
        for (const name of SECRETS.filter((n) => n !== 'NPM_TOKEN')) assert.doesNotMatch(r.output, new RegExp(`^${name}=`, 'm'), `${name} reached the command`);
        assert.match(r.output, /^NPM_TOKEN=npm-token-0000$/m);
        assert.match(r.output, /^AWS_REGION=us-east-1$/m);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    }
  });

  describe('through the CLI (node dist/cli.js against the mock API)', function () {
    this.timeout(60_000);
    let server: MockAnthropicServer;
    let ws: string;
    beforeEach(async () => {
      server = await MockAnthropicServer.start();
      ws = realpathSync(mkdtempSync(path.join(tmpdir(), 'turnstone-secret-env-cli-')));
    });
    afterEach(async () => {
      await server.close();
      rmSync(ws, { recursive: true, force: true });
    });

    for (const sandbox of ['auto', 'off']) {
      it(`--sandbox ${sandbox}: a command's env and a hook's env hold no credential of the runner; the tool result the model reads neither`, async () => {
        const settings = path.join(ws, 'settings.json');
        writeFileSync(settings, JSON.stringify({ 'turnstone.hooks': { PreToolUse: [{ matcher: 'bash', command: `env > '${path.join(ws, 'hook-env.txt')}'` }] } }));
        server.enqueue(toolUseReply([{ id: 'tu_env', name: 'bash', input: { command: 'env' } }]), textReply('done'));
        const run = await runCli(['-p', 'print the environment', '--cwd', ws, '--sandbox', sandbox, '--permission-mode', 'bypassPermissions', '--settings', settings, '--output-format', 'json'], {
          env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test-cli', ...RUNNER_ENV },
        });
        assert.equal(run.code, 0, run.stderr);
        const sent = JSON.stringify(server.bodies[1]);
        assert.match(sent, /AWS_REGION=us-east-1/, 'the command ran and printed its environment');
        const hookEnv = readFileSync(path.join(ws, 'hook-env.txt'), 'utf8');
        assert.match(hookEnv, /^AWS_REGION=us-east-1$/m, 'the hook ran');
        for (const name of SECRETS) {
          assert.ok(!sent.includes(RUNNER_ENV[name]!), `${name}'s value reached the model`);
          assert.doesNotMatch(hookEnv, new RegExp(`^${name}=`, 'm'), `${name} reached the hook`);
        }
      });
    }
  });
});
