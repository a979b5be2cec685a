// Issue 29, Agent Skills through the real CLI (`node dist/cli.js`) against the
// scripted mock API: `-p /skills` lists them without a request; in a turn the
// system prompt names them (no body), the skill tool loads one, and read_file
// reads a user skill's files outside the workspace without asking, but not a
// link in it that leads out.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MockAnthropicServer, textReply, toolUseReply } from '../../fixtures/mock-anthropic';
import { runCli } from '../../support/run-cli';

type Block = { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean };

describe('29 skills: CLI (node dist/cli.js against the mock API)', function () {
  this.timeout(90_000);
  let api: MockAnthropicServer;
  let tmp: string;
  let ws: string;
  let home: string;
  let env: Record<string, string>;
  const put = (file: string, text: string) => {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  };

  beforeEach(async () => {
    api = await MockAnthropicServer.start();
    tmp = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'turnstone-skills-cli-')));
    ws = path.join(tmp, 'ws');
    home = path.join(tmp, 'home');
    mkdirSync(ws);
    put(path.join(home, '.turnstone/skills/pdf/SKILL.md'), '---\nname: pdf\ndescription: Fill PDF forms\n---\nBODY-OF-PDF: run scripts/fill.py\n');
    put(path.join(home, '.turnstone/skills/pdf/scripts/fill.py'), 'print("filled")\n');
    put(path.join(tmp, 'private.txt'), 'NOT-FOR-THE-MODEL\n');
    symlinkSync(path.join(tmp, 'private.txt'), path.join(home, '.turnstone/skills/pdf/escape.txt'));
    put(path.join(ws, '.claude/skills/lint/SKILL.md'), '---\nname: lint\ndescription: Lint the code\n---\nBODY-OF-LINT\n');
    env = { ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: 'sk-test-cli', HOME: home };
  });
  afterEach(async () => {
    await api.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('-p /skills lists each skill (name, description, where from) and sends nothing, even without a key; json too', async () => {
    const run = await runCli(['-p', '/skills', '--cwd', ws], { env: { HOME: home } });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '2 skills:\n- lint: Lint the code (.claude/skills/lint)\n- pdf: Fill PDF forms (~/.turnstone/skills/pdf)\n');
    const json = await runCli(['-p', '/skills', '--cwd', ws, '--output-format', 'json'], { env });
    assert.equal(json.code, 0, json.stderr);
    const parsed = JSON.parse(json.stdout) as { type: string; skills: Array<{ name: string; scope: string; source: string; path: string }> };
    assert.equal(parsed.type, 'skills');
    assert.deepEqual(parsed.skills.map((s) => [s.name, s.scope, s.source]), [['lint', 'workspace', '.claude/skills/lint'], ['pdf', 'user', '~/.turnstone/skills/pdf']]);
    assert.equal(api.requests.length, 0);
  });

  it('the prompt names the skills without their bodies; the skill tool loads one; read_file reads its files but not a link leading out', async () => {
    const skillDir = path.join(home, '.turnstone/skills/pdf');
    api.enqueue(
      toolUseReply([{ id: 'tu_skill', name: 'skill', input: { name: 'pdf' } }]),
      toolUseReply([
        { id: 'tu_read', name: 'read_file', input: { path: path.join(skillDir, 'scripts/fill.py') } },
        { id: 'tu_escape', name: 'read_file', input: { path: path.join(skillDir, 'escape.txt') } },
      ]),
      textReply('Done.'),
    );
    // Default (ask) mode, non-interactive: a read outside the workspace is denied.
    const run = await runCli(['-p', 'fill the form', '--cwd', ws], { env });
    assert.equal(run.code, 0, run.stderr);
    const system = JSON.stringify(api.bodies[0]!.system);
    assert.match(system, /- lint: Lint the code\\n- pdf: Fill PDF forms/);
    assert.ok(!system.includes('BODY-OF'), 'no skill body in the system prompt');
    assert.ok((api.bodies[0]!.tools as Array<{ name: string }>).some((t) => t.name === 'skill'));

    const resultsOf = (i: number) => {
      const messages = api.bodies[i]!.messages as Array<{ role: string; content: Block[] | string }>;
      return (messages.at(-1)!.content as Block[]).filter((b) => b.type === 'tool_result');
    };
    const text = (b: Block) => JSON.stringify(b.content);
    const [skill] = resultsOf(1);
    assert.equal(skill!.is_error ?? false, false);
    assert.match(text(skill!), /BODY-OF-PDF: run scripts\/fill\.py/);
    assert.match(text(skill!), /- scripts\/fill\.py/);
    assert.ok(!text(skill!).includes('escape.txt'), 'a link leading out is not listed');

    const [read, escape] = resultsOf(2);
    assert.equal(read!.is_error ?? false, false, text(read!));
    assert.match(text(read!), /print\(\\"filled\\"\)/);
    assert.equal(escape!.is_error, true);
    assert.match(text(escape!), /outside the workspace/);
    assert.ok(!text(escape!).includes('NOT-FOR-THE-MODEL'));
  });
});
