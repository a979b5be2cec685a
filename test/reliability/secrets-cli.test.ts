// Issue 10, A-SEC-CLI-*: the headless CLI (`node dist/cli.js`) with a canary key
// in ANTHROPIC_API_KEY never prints or stores it: session file, stdout and
// stderr in every output format, on the success path (tool uses and a retried
// 500) and on the 401 path. (The CLI has no --verbose flag.)
import * as assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorReply, MockAnthropicServer, textReply, toolUseReply } from '../fixtures/mock-anthropic';
import { runCli } from '../support/run-cli';
import { recordScenario } from './report';

const FORMATS = ['text', 'json', 'stream-json'] as const;


describe('A-SEC-CLI: the API key in the environment of the CLI', function () {
  this.timeout(120_000);
  const CANARY = `sk-ant-clicanary-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}-END`;
  let server: MockAnthropicServer;
  let ws: string;
  let env: Record<string, string>;

  before(async () => {
    server = await MockAnthropicServer.start();
    ws = mkdtempSync(path.join(os.tmpdir(), 'turnstone-secrets-cli-'));
    env = { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: CANARY };
  });
  after(async () => {
    await server?.close();
    if (ws) rmSync(ws, { recursive: true, force: true });
  });
  beforeEach(() => server.reset());

  it('A-SEC-CLI-01: tool uses and a retried 500 in text, json and stream-json: the key is in no output and no session file', async () => {
    const rows: string[] = [];
    let leaks = 0;
    let controls = 0;
    for (const format of FORMATS) {
      server.reset();
      writeFileSync(path.join(ws, 'notes.txt'), 'draft\n');
      const session = path.join(ws, `session-${format}.jsonl`);
      server.enqueue(
        toolUseReply([{ id: 'tu_r', name: 'read_file', input: { path: 'notes.txt' } }]),
        toolUseReply([{ id: 'tu_e', name: 'edit_file', input: { path: 'notes.txt', old_string: 'draft', new_string: 'final' } }]),
        errorReply(500, 'api_error', 'Internal server error'),
        textReply('Notes are final.'),
      );
      const run = await runCli(['-p', 'finalize the notes', '--cwd', ws, '--permission-mode', 'acceptEdits', '--output-format', format, '--session', session], { env });
      const sessionText = existsSync(session) ? readFileSync(session, 'utf8') : '';
      const auth = server.requests.map((r) => String(r.headers['x-api-key'] ?? r.headers['authorization'] ?? '').replace(/^Bearer /, ''));
      const inBodies = server.requests.filter((r) => r.rawBody.includes(CANARY)).length;
      const hits = [run.stdout.includes(CANARY) && 'stdout', run.stderr.includes(CANARY) && 'stderr', sessionText.includes(CANARY) && 'session', inBodies && 'request body'].filter(Boolean);
      // Controls: the turn completed after the retry, the session holds the prompt, the key did reach the API.
      const control = run.code === 0 && server.requests.length === 4 && sessionText.includes('finalize the notes') && auth.every((k) => k === CANARY);
      if (hits.length) leaks++;
      if (control) controls++;
      rows.push(`${format}: exit ${run.code}, ${server.requests.length} requests (key in auth header: ${auth.filter((k) => k === CANARY).length}), key found in ${hits.length ? hits.join('+') : 'nothing'}`);
    }
    recordScenario({
      id: 'A-SEC-CLI-01',
      area: 'secrets',
      scenario: 'CLI with a canary ANTHROPIC_API_KEY: read/edit tool uses and a 500 retried, --session file, in text, json and stream-json',
      expected: 'the key is in no stdout, stderr, session file or request body (only the auth header)',
      observed: rows.join('; '),
      passed: leaks === 0 && controls === FORMATS.length,
    });
    assert.equal(leaks, 0, rows.join('\n'));
    assert.equal(controls, FORMATS.length, rows.join('\n'));
  });

  it('A-SEC-CLI-02: a 401 in text, json and stream-json: the error output does not echo the key', async () => {
    const rows: string[] = [];
    let leaks = 0;
    let controls = 0;
    for (const format of FORMATS) {
      server.reset();
      const session = path.join(ws, `session-401-${format}.jsonl`);
      server.enqueue(errorReply(401, 'authentication_error', 'invalid x-api-key'));
      const run = await runCli(['-p', 'hello', '--cwd', ws, '--output-format', format, '--session', session], { env });
      const sessionText = existsSync(session) ? readFileSync(session, 'utf8') : '';
      const hits = [run.stdout.includes(CANARY) && 'stdout', run.stderr.includes(CANARY) && 'stderr', sessionText.includes(CANARY) && 'session'].filter(Boolean);
      // Control: the run failed with the API's complaint visible somewhere.
      const control = run.code === 1 && /401|auth|api-key|api key/i.test(run.stdout + run.stderr);
      if (hits.length) leaks++;
      if (control) controls++;
      rows.push(`${format}: exit ${run.code}, ${run.stdout.length + run.stderr.length} bytes of output, key found in ${hits.length ? hits.join('+') : 'nothing'}`);
    }
    recordScenario({
      id: 'A-SEC-CLI-02',
      area: 'secrets',
      scenario: 'CLI with a canary ANTHROPIC_API_KEY that the API rejects (401), in text, json and stream-json, with --session',
      expected: 'the turn fails (exit 1) and reports the auth error; the key is in no output or session file',
      observed: rows.join('; '),
      passed: leaks === 0 && controls === FORMATS.length,
    });
    assert.equal(leaks, 0, rows.join('\n'));
    assert.equal(controls, FORMATS.length, rows.join('\n'));
  });

  it('A-SEC-CLI-03: a bash tool use reading the environment: does the key reach the model?', async () => {
    server.enqueue(
      toolUseReply([{ id: 'tu_env', name: 'bash', input: { command: 'printenv ANTHROPIC_API_KEY; env | grep -c clicanary' } }]),
      textReply('done'),
    );
    const run = await runCli(['-p', 'show me the environment', '--cwd', ws, '--permission-mode', 'ask', '--allow', 'bash(printenv:*)', '--allow', 'bash(env:*)', '--allow', 'bash(grep:*)', '--output-format', 'json'], { env });
    const toolResult = JSON.stringify(server.bodies[1]?.messages ?? '');
    const ran = server.requests.length === 2 && /tool_result/.test(toolResult);
    const leaked = toolResult.includes(CANARY);
    recordScenario({
      id: 'A-SEC-CLI-03',
      area: 'secrets',
      scenario: 'CLI with the key in ANTHROPIC_API_KEY; the model runs an allowed bash command that prints the environment',
      expected: 'the tool sees no API key, so it never reaches the model in a tool result',
      observed: `exit ${run.code}; the command ran: ${ran}; key in the tool result sent to the model: ${leaked}`,
      passed: ran && !leaked,
    });
    assert.ok(ran, `the bash tool did not run: ${run.stderr.slice(0, 500)}`);
    assert.equal(leaked, false, 'the API key reached the model through the bash tool');
  });
  for (const sandbox of ['off', 'auto'] as const) {
    it(`A-SEC-CLI-04${sandbox === 'auto' ? 'b' : 'a'}: a command reads every /proc/*/environ (--sandbox ${sandbox}): the key is in none of them, the CLI's launcher included`, async function () {
      const tail = CANARY.slice(-16);
      // Counts the environments it could read, looks at the launcher's (the CLI's parent, which started with the key), then greps them all.
      const command = [
        `gp=$(awk '{print $4}' /proc/$PPID/stat 2>/dev/null)`,
        `echo "launcher-key-entries:$(tr '\\0' '\\n' < /proc/$gp/environ 2>/dev/null | grep -c '^ANTHROPIC_API_KEY=')"`,
        `n=0; for f in /proc/[0-9]*/environ; do cat "$f" >/dev/null 2>&1 && n=$((n+1)); done; echo "readable:$n"`,
        `echo "hits:$(cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c -- '${tail}')"`,
      ].join('; ');
      server.enqueue(toolUseReply([{ id: 'tu_proc', name: 'bash', input: { command } }]), textReply('done'));
      const run = await runCli(['-p', 'read the environments', '--cwd', ws, '--permission-mode', 'bypassPermissions', '--sandbox', sandbox, '--output-format', 'json'], { env });
      const toolResult = JSON.stringify(server.bodies[1]?.messages ?? '');
      const hits = Number(/hits:(\d+)/.exec(toolResult)?.[1] ?? NaN);
      const readable = Number(/readable:(\d+)/.exec(toolResult)?.[1] ?? NaN);
      const launcher = Number(/launcher-key-entries:(\d+)/.exec(toolResult)?.[1] ?? NaN);
      const leaked = toolResult.includes(CANARY) || hits !== 0;
      // Controls: without the sandbox the command reads many environments, the launcher's among them
      // (its ANTHROPIC_API_KEY entry is there, overwritten); inside the sandbox it sees only its own few processes.
      const control = run.code === 0 && (sandbox === 'off' ? readable >= 3 && launcher === 1 : readable >= 1 && readable <= 6 && launcher === 0);
      recordScenario({
        id: `A-SEC-CLI-04${sandbox === 'auto' ? 'b' : 'a'}`,
        area: 'secrets',
        scenario: `CLI with a canary ANTHROPIC_API_KEY, --sandbox ${sandbox}: a bash command reads /proc/*/environ of every process it can see, the CLI's launcher included`,
        expected: sandbox === 'off' ? 'the key is in no readable environment: the CLI relaunched itself without it and overwrote it in the launcher' : 'the sandbox sees only its own processes; the key is in none of their environments',
        observed: `exit ${run.code}; environments readable: ${readable}; launcher's ANTHROPIC_API_KEY entries seen: ${launcher}; canary hits: ${hits}; key in the tool result: ${toolResult.includes(CANARY)}`,
        passed: !leaked && control,
      });
      assert.equal(leaked, false, toolResult.slice(0, 2000));
      assert.ok(control, `control failed: ${toolResult.slice(0, 2000)} ${run.stderr.slice(0, 500)}`);
    });
  }
});
