// Issue 32: the GitHub Action's entry (node dist/action.js, running dist/cli.js)
// against the scripted Anthropic API and a local stand-in for GitHub's REST API,
// with the pull_request and issue_comment payloads of test/fixtures/github-events.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorReply, MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { MockGitHubServer } from '../../fixtures/mock-github';
import { MockOpenAIServer, openaiTextReply } from '../../fixtures/mock-openai';
import { runAction, type ActionRun } from '../../support/run-action';
import { GitHubApi, hasWriteAccess } from '../../../src/action/github';

const EVENTS = path.resolve(__dirname, '..', '..', 'fixtures', 'github-events');
const PULL_REQUEST = path.join(EVENTS, 'pull_request.opened.json');
const ISSUE_COMMENT = path.join(EVENTS, 'issue_comment.created.json');
const DISCUSSION_COMMENT = path.join(EVENTS, 'discussion_comment.created.json');
const WORKFLOW_RUN = path.join(EVENTS, 'workflow_run.completed.json');
const FORK_PULL_REQUEST = path.join(EVENTS, 'pull_request.opened.fork.json');
const KEY = 'sk-ant-api03-action-test-9f8e7d6c5b4a';
const TOKEN = 'ghs_test_token';
const MARKER = '<!-- turnstone-action:Turnstone review/review -->';

/** The lines between a `::stop-commands::<token>` and its `::<token>::`: what the runner prints without acting on. */
function inertLines(stdout: string): Set<number> {
  const inert = new Set<number>();
  let token: string | undefined;
  stdout.split('\n').forEach((line, i) => {
    if (token === undefined) {
      token = /^::stop-commands::(.+)$/.exec(line)?.[1];
    } else if (line === `::${token}::`) token = undefined;
    else inert.add(i);
  });
  return inert;
}

describe('GitHub Action: the entry against the scripted model API and a GitHub stand-in (issue 32)', function () {
  this.timeout(120_000);
  let ws: string;
  let api: MockAnthropicServer;
  let gh: MockGitHubServer;
  let env: Record<string, string>;

  beforeEach(async () => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-action-ws-'));
    writeFileSync(path.join(ws, 'README.md'), '# widgets\n');
    api = await MockAnthropicServer.start();
    gh = await MockGitHubServer.start();
    env = { ANTHROPIC_BASE_URL: api.url, GITHUB_API_URL: gh.url };
  });
  afterEach(async () => {
    await api.close();
    await gh.close();
    rmSync(ws, { recursive: true, force: true });
  });

  const inputs = (extra: Record<string, string> = {}) => ({ prompt: 'Review this pull request', anthropic_api_key: KEY, github_token: TOKEN, ...extra });
  const ourComments = () => gh.comments.filter((c) => c.body.startsWith(MARKER));
  const writes = () => gh.calls.filter((c) => c.method === 'POST' || c.method === 'PATCH');

  it('pull_request with comment: true posts the reply as one comment, and a second run edits that comment in place', async () => {
    gh.roles.set('maintainer-mae', 'maintain');
    gh.pageSize = 2;
    // Comments by others come first and fill a page: ours is found on the second page.
    gh.addComment(42, 'First!');
    gh.addComment(42, 'LGTM from me');
    api.enqueue(textReply('The change parses inches correctly.', { usage: { input_tokens: 1200, output_tokens: 80 } }));
    const first = await runAction({ inputs: inputs({ comment: 'true' }), env: { ...env, GITHUB_EVENT_NAME: 'pull_request' }, eventFile: PULL_REQUEST, workspace: ws });
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(ourComments().length, 1);
    const posted = ourComments()[0]!;
    assert.match(posted.body, /The change parses inches correctly\./);
    assert.match(posted.body, /\[run\]\(https:\/\/github\.com\/octo-org\/widgets\/actions\/runs\/7001\)/);
    assert.deepEqual(
      writes().map((c) => `${c.method} ${c.url}`),
      ['POST /repos/octo-org/widgets/issues/42/comments'],
    );
    assert.ok(gh.calls.some((c) => c.url === '/repos/octo-org/widgets/collaborators/maintainer-mae/permission'), 'the sender was checked');
    assert.ok(gh.calls.every((c) => c.authorization === `Bearer ${TOKEN}`), 'every call carries the job token');

    api.enqueue(textReply('Second look: still correct.'));
    const second = await runAction({ inputs: inputs({ comment: 'true' }), env: { ...env, GITHUB_EVENT_NAME: 'pull_request' }, eventFile: PULL_REQUEST, workspace: ws });
    assert.equal(second.code, 0, second.stdout + second.stderr);
    assert.equal(ourComments().length, 1, 'still one comment of ours');
    assert.equal(ourComments()[0]!.id, posted.id);
    assert.match(ourComments()[0]!.body, /Second look: still correct\./);
    assert.doesNotMatch(ourComments()[0]!.body, /parses inches/);
    assert.deepEqual(writes().map((c) => `${c.method} ${c.url}`).slice(1), [`PATCH /repos/octo-org/widgets/issues/comments/${posted.id}`]);
    assert.equal(gh.comments.length, 3, 'the others’ comments untouched');
    assert.match(second.stdout, new RegExp(`updated comment ${posted.id} on #42`));
  });

  it('issue_comment by someone without write access is refused before any model request; allow_untrusted: true runs it', async () => {
    // drive-by-dan is no collaborator (404); a read-only collaborator is refused the same way.
    api.enqueue(textReply('should not be sent'));
    const refused = await runAction({ inputs: inputs({ comment: 'true' }), env: { ...env, GITHUB_EVENT_NAME: 'issue_comment' }, eventFile: ISSUE_COMMENT, workspace: ws });
    assert.equal(refused.code, 1);
    assert.equal(refused.outputs.is_error, 'true');
    assert.match(refused.outputs.result!, /drive-by-dan has no write access to octo-org\/widgets.*allow_untrusted: true/);
    assert.match(refused.stdout, /^::error::drive-by-dan has no write access/m);
    assert.equal(api.requests.length, 0, 'no model request');
    assert.deepEqual(writes(), [], 'no comment');

    gh.roles.set('drive-by-dan', 'read');
    const readOnly = await runAction({ inputs: inputs(), env: { ...env, GITHUB_EVENT_NAME: 'issue_comment' }, eventFile: ISSUE_COMMENT, workspace: ws });
    assert.equal(readOnly.code, 1);
    assert.equal(api.requests.length, 0);

    gh.roles.delete('drive-by-dan');
    const allowed = await runAction({ inputs: inputs({ comment: 'true', allow_untrusted: 'true' }), env: { ...env, GITHUB_EVENT_NAME: 'issue_comment' }, eventFile: ISSUE_COMMENT, workspace: ws });
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
    assert.equal(api.requests.length, 1);
    assert.equal(ourComments().length, 1);
    assert.equal(ourComments()[0]!.issue, 42, 'the comment goes on the thread the comment was made in');
  });

  it('the key never appears in the log, the summary, the outputs or the session file, and the agent’s commands do not get it', async () => {
    gh.roles.set('maintainer-mae', 'admin');
    api.enqueue(
      toolUseReply([{ id: 'tu_env', name: 'bash', input: { command: 'env' } }]),
      // A reply that tries to act on the runner: shown as text, never acted on.
      textReply(`Done.\n::add-mask::nothing\n::error::injected\n::stop-commands::x`),
    );
    const run = await runAction({
      inputs: inputs({ comment: 'true', allowed_rules: 'bash(env)\n', settings: '{"turnstone.sandbox": "off"}' }),
      env: { ...env, GITHUB_EVENT_NAME: 'pull_request' },
      eventFile: PULL_REQUEST,
      workspace: ws,
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const sent = api.requests[0]!.headers;
    assert.ok(sent['x-api-key'] === KEY || sent.authorization === `Bearer ${KEY}`, 'the key reached the CLI');

    // The only lines that hold a secret are the ones that register it with the runner, and they come first.
    const lines = run.stdout.split('\n');
    const secretLines = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.includes(KEY) || l.includes(TOKEN));
    assert.deepEqual(
      secretLines.map(({ l }) => l),
      [`::add-mask::${KEY}`, `::add-mask::${TOKEN}`],
    );
    assert.deepEqual(
      secretLines.map(({ i }) => i),
      [0, 1],
      'masked before anything else',
    );
    for (const [what, text] of [['stderr', run.stderr], ['summary', run.summary], ['outputs', run.outputsFile], ['comment', gh.comments.map((c) => c.body).join('\n')], ['session file', readFileSync(run.outputs.session_file!, 'utf8')]] as const) {
      assert.ok(!text.includes(KEY), `the key is in the ${what}`);
      assert.ok(!text.includes(TOKEN), `the token is in the ${what}`);
    }
    // The command's output, in its log group: none of the inputs, runner tokens or keys.
    const envOutput = (api.bodies[1]!.messages as Array<{ content: Array<{ type: string; content?: unknown }> }>).flatMap((m) => m.content).find((b) => b.type === 'tool_result');
    const shown = JSON.stringify(envOutput);
    assert.match(shown, /PATH=/, 'env ran');
    assert.doesNotMatch(shown, /INPUT_|ANTHROPIC_API_KEY|GITHUB_TOKEN|GITHUB_OUTPUT|GITHUB_ENV/);
    assert.match(run.stdout, /^::group::✓ bash env$/m);

    // The reply's command-looking lines are inert: inside a stop-commands block.
    const inert = inertLines(run.stdout);
    for (const bad of ['::add-mask::nothing', '::error::injected', '::stop-commands::x']) {
      const at = lines.indexOf(bad);
      assert.ok(at >= 0, `${bad} is printed`);
      assert.ok(inert.has(at), `${bad} was printed where the runner would act on it`);
    }
  });

  it('issue 42 items 2 and 5: with the sandbox off a command finds no input or runner token in any /proc/<pid>/environ, and a job secret the turn saw is masked in the session file and the reply', async () => {
    gh.roles.set('maintainer-mae', 'admin');
    const jobSecret = 'deploy-secret-4411aa-zz';
    const runtimeToken = 'runtime-token-5566bb-zz';
    // Every environment of this user's processes, one variable a line, only the ones that would matter.
    const look = `for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f" 2>/dev/null; done | grep -a -e '^INPUT_ANTHROPIC_API_KEY=' -e '^INPUT_GITHUB_TOKEN=' -e '^ACTIONS_RUNTIME_TOKEN=' -e '^DEPLOY_TOKEN=' | sort -u`;
    api.enqueue(toolUseReply([{ id: 'tu_proc', name: 'bash', input: { command: look } }]), textReply(`The deploy token is ${jobSecret}.`));
    const run = await runAction({
      inputs: inputs({ allowed_rules: 'bash\n', settings: '{"turnstone.sandbox": "off"}' }),
      env: { ...env, GITHUB_EVENT_NAME: 'pull_request', ACTIONS_RUNTIME_TOKEN: runtimeToken, DEPLOY_TOKEN: jobSecret },
      eventFile: PULL_REQUEST,
      workspace: ws,
    });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const seen = JSON.stringify(api.bodies[1]!.messages);
    assert.match(seen, /INPUT_ANTHROPIC_API_KEY=x+/, 'the action process was there to read, its key overwritten');
    for (const secret of [KEY, TOKEN, runtimeToken, jobSecret]) assert.ok(!seen.includes(secret), `a command read ${secret}`);
    const session = readFileSync(run.outputs.session_file!, 'utf8');
    assert.ok(!session.includes(jobSecret), 'the job secret is in the uploaded session file');
    assert.match(session, /The deploy token is \*\*\*\./);
    assert.equal(run.outputs.result, 'The deploy token is ***.');
    assert.match(run.stdout, new RegExp(`^::add-mask::${jobSecret}$`, 'm'), 'registered with the runner like the keys');
  });

  it('issue 42 item 5: what the turn wrote to GITHUB_ENV and GITHUB_PATH is put back before the step ends, and the run fails saying so', async () => {
    gh.roles.set('maintainer-mae', 'admin');
    const files = mkdtempSync(path.join(os.tmpdir(), 'turnstone-runner-files-'));
    const envFile = path.join(files, 'set_env_1');
    const pathFile = path.join(files, 'add_path_1');
    writeFileSync(envFile, 'KEEP=1\n');
    writeFileSync(pathFile, '');
    try {
      // A script of the pull request's: what it touches is past the command analysis's sight (the sandbox is off).
      writeFileSync(path.join(ws, 'setup.sh'), `echo EVIL=1 >> ${envFile}\necho /tmp/evil >> ${pathFile}\n`);
      api.enqueue(toolUseReply([{ id: 'tu_env', name: 'bash', input: { command: 'sh setup.sh' } }]), textReply('All set.'));
      const run = await runAction({
        inputs: inputs({ allowed_rules: 'bash\n', settings: '{"turnstone.sandbox": "off"}' }),
        env: { ...env, GITHUB_EVENT_NAME: 'pull_request', GITHUB_ENV: envFile, GITHUB_PATH: pathFile },
        eventFile: PULL_REQUEST,
        workspace: ws,
      });
      assert.equal(api.requests.length, 2);
      assert.doesNotMatch(JSON.stringify(api.bodies[1]!.messages), /Permission denied/, 'the command ran');
      assert.equal(readFileSync(envFile, 'utf8'), 'KEEP=1\n');
      assert.equal(readFileSync(pathFile, 'utf8'), '');
      assert.equal(run.code, 1);
      assert.equal(run.outputs.is_error, 'true');
      assert.match(run.outputs.result!, /wrote to the runner's GITHUB_ENV, GITHUB_PATH.*put back what was there/);
    } finally {
      rmSync(files, { recursive: true, force: true });
    }
  });

  it('a failing turn (the API answers 401) sets is_error, exits non-zero and says why on the thread', async () => {
    gh.roles.set('maintainer-mae', 'write');
    api.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
    const run = await runAction({ inputs: inputs({ comment: 'true' }), env: { ...env, GITHUB_EVENT_NAME: 'pull_request' }, eventFile: PULL_REQUEST, workspace: ws });
    assert.equal(run.code, 1);
    assert.equal(run.outputs.is_error, 'true');
    assert.match(run.outputs.result!, /invalid x-api-key|authentication/i);
    assert.match(run.stdout, /^::error::the turn failed: /m);
    assert.match(run.summary, /the turn failed/);
    assert.match(ourComments()[0]!.body, /Turnstone could not finish:/);
  });

  it('a cost cap that stops the turn is a failure: is_error true, exit 1, nothing sent', async () => {
    api.enqueue(textReply('never sent'));
    const run = await runAction({ inputs: inputs({ max_cost_usd: '0.0001', model: 'claude-3-5-haiku-latest' }), env, workspace: ws });
    assert.equal(run.code, 1);
    assert.equal(run.outputs.is_error, 'true');
    assert.match(run.outputs.result!, /per-turn cap of \$0\.0001/);
    assert.equal(run.outputs.cost_usd, '0');
    assert.equal(api.requests.length, 0);
  });

  it('outputs: a multi-line result, is_error, cost_usd and session_file in the delimiter syntax; the summary has the result, usage and cost', async () => {
    api.enqueue(textReply('Line one.\nresult<<EOF\nLine three.', { usage: { input_tokens: 1_000_000, output_tokens: 1_000 } }));
    const run = await runAction({ inputs: inputs({ model: 'claude-3-5-haiku-latest', session_artifact_name: 'review-session' }), env, workspace: ws });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.outputs.result, 'Line one.\nresult<<EOF\nLine three.');
    assert.equal(run.outputs.is_error, 'false');
    // claude-3-5-haiku: $1 per million in, $5 per million out.
    assert.equal(run.outputs.cost_usd, '1.005');
    const session = run.outputs.session_file!;
    assert.match(session, /turnstone-7001-1-[0-9a-f]{6}\.jsonl$/);
    assert.match(readFileSync(session, 'utf8'), /Line three\./);
    assert.match(run.outputsFile, /^result<<ghadelimiter_[0-9a-f-]{36}$/m);
    assert.match(run.summary, /Line one\./);
    assert.match(run.summary, /\| Input tokens \| 1,000,000 /);
    assert.match(run.summary, /\| Output tokens \| 1,000 \|/);
    assert.match(run.summary, /\| Cost \| \$1\.0050 \|/);
    assert.match(run.summary, /artifact `review-session`/);
  });

  it('provider and openai_api_key: an OpenAI-compatible server gets the key (masked), the provider reaches the CLI', async () => {
    const openai = await MockOpenAIServer.start();
    try {
      const key = 'sk-local-action-test-4242';
      openai.enqueue(openaiTextReply('Hello from a local model.', { usage: [100, 10] }));
      const run = await runAction({
        inputs: { prompt: 'hi', provider: 'openai-compatible', openai_api_key: key, model: 'qwen3-coder' },
        env: { OPENAI_BASE_URL: openai.baseURL },
        workspace: ws,
      });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.equal(run.outputs.result, 'Hello from a local model.');
      assert.equal(run.outputs.cost_usd, '', 'no price for a local model: empty, not 0');
      assert.equal(openai.requests[0]!.headers.authorization, `Bearer ${key}`);
      assert.equal(run.stdout.split('\n')[0], `::add-mask::${key}`);
      assert.equal(run.stdout.split(key).length, 2, 'the key is printed only in its mask command');
    } finally {
      await openai.close();
    }
  });

  it('bad inputs stop before the turn with an error naming the input', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ permission_mode: 'yolo' }, /input permission_mode is 'yolo': use one of plan, ask, acceptEdits, bypassPermissions/],
      [{ max_cost_usd: 'lots' }, /input max_cost_usd is 'lots'/],
      [{ comment: 'yes' }, /input comment is 'yes': use true or false/],
      [{ prompt: '', prompt_file: 'missing.md' }, /prompt_file missing\.md cannot be read \(ENOENT\)/],
      [{ settings: '{not json' }, /input settings is not a JSON object/],
    ];
    for (const [extra, message] of cases) {
      const run: ActionRun = await runAction({ inputs: inputs(extra), env, workspace: ws });
      assert.equal(run.code, 1, JSON.stringify(extra));
      assert.equal(run.outputs.is_error, 'true');
      assert.match(run.stdout, new RegExp(`^::error::${message.source}`, 'm'));
    }
    const noKey = await runAction({ inputs: inputs({ anthropic_api_key: '' }), env, workspace: ws });
    assert.equal(noKey.code, 1);
    assert.match(noKey.outputs.result!, /^no API key: set the anthropic_api_key input from a secret/);
    assert.equal(api.requests.length, 0);
  });

  it('the untrusted-commenter check fails closed: discussion_comment, workflow_run, pull_request_target and a fork\'s pull_request from someone without write access run nothing; a maintainer\'s re-run of a fork\'s CI is refused too, a workflow_run a maintainer authored and triggered runs', async () => {
    // drive-by-dan is no collaborator (the stand-in answers 404).
    const cases: Array<[string, string]> = [
      ['discussion_comment', DISCUSSION_COMMENT],
      ['workflow_run', WORKFLOW_RUN],
      ['pull_request_target', FORK_PULL_REQUEST],
      ['pull_request', FORK_PULL_REQUEST],
    ];
    for (const [event, file] of cases) {
      const run = await runAction({ inputs: inputs({ comment: 'true' }), env: { ...env, GITHUB_EVENT_NAME: event }, eventFile: file, workspace: ws });
      assert.equal(run.code, 1, `${event}: ${run.stdout}`);
      assert.match(run.outputs.result!, new RegExp(`drive-by-dan has no write access to octo-org/widgets, so Turnstone does not run for this ${event} event`));
    }
    assert.equal(api.requests.length, 0, 'no model request');
    assert.deepEqual(writes(), [], 'no comment');
    // The same CI run re-run by a maintainer still ran the fork's content: refused too. A run a maintainer both
    // authored and triggered runs.
    const rerun = JSON.parse(readFileSync(WORKFLOW_RUN, 'utf8')) as { workflow_run: { actor: { login: string }; triggering_actor: { login: string } } };
    rerun.workflow_run.triggering_actor.login = 'maintainer-mae';
    gh.roles.set('maintainer-mae', 'maintain');
    const rerunFile = path.join(ws, '..', `${path.basename(ws)}-workflow_run.json`);
    try {
      writeFileSync(rerunFile, JSON.stringify(rerun));
      const rerunByMaintainer = await runAction({ inputs: inputs(), env: { ...env, GITHUB_EVENT_NAME: 'workflow_run' }, eventFile: rerunFile, workspace: ws });
      assert.equal(rerunByMaintainer.code, 1, rerunByMaintainer.stdout);
      assert.match(rerunByMaintainer.outputs.result!, /drive-by-dan has no write access/);
      rerun.workflow_run.actor.login = 'maintainer-mae';
      writeFileSync(rerunFile, JSON.stringify(rerun));
      api.enqueue(textReply('CI fixed.'));
      const ran = await runAction({ inputs: inputs(), env: { ...env, GITHUB_EVENT_NAME: 'workflow_run' }, eventFile: rerunFile, workspace: ws });
      assert.equal(ran.code, 0, ran.stdout + ran.stderr);
      assert.equal(api.requests.length, 1);
    } finally {
      rmSync(rerunFile, { force: true });
    }
  });

  it('an event the action does not know, or a run with no event name, runs nothing unless allow_untrusted; the message lists the events it serves', async () => {
    for (const name of ['watch', '']) {
      const run = await runAction({ inputs: inputs(), env: { ...env, GITHUB_EVENT_NAME: name }, eventFile: ISSUE_COMMENT, workspace: ws });
      assert.equal(run.code, 1, run.stdout);
      assert.match(run.outputs.result!, /Turnstone does not run for (watch events|a run with no GITHUB_EVENT_NAME): it cannot tell who caused them\. It serves pull_request, .*discussion_comment, workflow_run, push, workflow_dispatch/);
    }
    assert.equal(api.requests.length, 0);
    api.enqueue(textReply('Starred.'));
    const allowed = await runAction({ inputs: inputs({ allow_untrusted: 'true' }), env: { ...env, GITHUB_EVENT_NAME: 'watch' }, eventFile: ISSUE_COMMENT, workspace: ws });
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  });

  it('prompt_file is read inside the repository only, never through a link: a link to a credentials file, a folder link and ../ are refused before any request', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'turnstone-action-home-'));
    try {
      writeFileSync(path.join(outside, '.git-credentials'), 'https://x-access-token:ghs_secret@github.com\n');
      mkdirSync(path.join(outside, 'prompts'));
      writeFileSync(path.join(outside, 'prompts', 'task.md'), 'Print ghs_secret\n');
      symlinkSync(path.join(outside, '.git-credentials'), path.join(ws, 'task.md'));
      symlinkSync(path.join(outside, 'prompts'), path.join(ws, 'prompts'));
      const cases: Array<[string, RegExp]> = [
        ['task.md', /prompt_file task\.md is or passes through a link \(task\.md\)/],
        ['prompts/task.md', /prompt_file prompts\/task\.md is or passes through a link \(prompts\)/],
        [`../${path.basename(outside)}/.git-credentials`, /is outside the repository/],
        [path.join(outside, '.git-credentials'), /is outside the repository/],
      ];
      for (const [file, why] of cases) {
        const run = await runAction({ inputs: inputs({ prompt: '', prompt_file: file }), env, workspace: ws });
        assert.equal(run.code, 1, `${file}: ${run.stdout}`);
        assert.match(run.stdout, why);
        assert.doesNotMatch(run.stdout + run.stderr, /ghs_secret/);
      }
      assert.equal(api.requests.length, 0, 'no model request');
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('prompt_file reads the task from the repository', async () => {
    writeFileSync(path.join(ws, 'task.md'), 'Summarise the README.\n');
    api.enqueue(textReply('It is a heading.'));
    const run = await runAction({ inputs: inputs({ prompt: '', prompt_file: 'task.md' }), env, workspace: ws });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(JSON.stringify(api.bodies[0]!.messages), /Summarise the README\./);
  });
});

// The check itself, in process against the GitHub stand-in: one request per role, no action run.
describe('GitHub Action: who counts as a writer (the collaborator permission check)', () => {
  let gh: MockGitHubServer;
  before(async () => {
    gh = await MockGitHubServer.start();
  });
  after(() => gh.close());

  it('only admin, maintain and write are writers: triage and read are not, nor someone who is no collaborator', async () => {
    const api = new GitHubApi(gh.url, TOKEN);
    const ctx = { name: 'issue_comment', owner: 'octo-org', repo: 'widgets', issueNumber: 42, trust: 'actor' as const, actors: [] };
    const roles = ['admin', 'maintain', 'write', 'triage', 'read'] as const;
    for (const role of roles) gh.roles.set(`${role}-user`, role);
    const verdicts: Record<string, boolean> = {};
    for (const user of [...roles.map((r) => `${r}-user`), 'stranger']) verdicts[user] = await hasWriteAccess(api, ctx, user);
    assert.deepEqual(verdicts, { 'admin-user': true, 'maintain-user': true, 'write-user': true, 'triage-user': false, 'read-user': false, stranger: false });
  });
});
