import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { loadProjectInstructions } from '../../../src/runtime/context/instructions';
import { nodeInstructionReader } from '../../../src/runtime/context/instructions-node';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';
import { loadCustomSlashCommands } from '../../../src/runtime/context/slash-commands';
import { buildSystemPrompt } from '../../../src/runtime/context/system-prompt';
import { baseConfig, deferred, memoryTools, ScriptedModel, step } from './fakes';

describe('runtime: project instructions', () => {
  let tmp: string;
  let ws: string;
  let home: string;
  const put = (rel: string, text: string, base = ws) => {
    mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
    writeFileSync(path.join(base, rel), text);
  };
  const load = (limits?: { perFile: number; total: number }) => loadProjectInstructions(nodeInstructionReader, { workspaceRoot: ws, homeDir: home, sensitive: sensitiveFileMatcher() }, limits);

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-instr-'));
    ws = path.join(tmp, 'ws');
    home = path.join(tmp, 'home');
    mkdirSync(ws);
    mkdirSync(home);
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('reads every known file in the contract order, each under a line naming it', async () => {
    put('AGENTS.md', 'agents rule');
    put('CLAUDE.md', 'claude rule');
    put('.github/copilot-instructions.md', 'copilot rule');
    put('.clinerules/b.md', 'cline b');
    put('.clinerules/a.md', 'cline a');
    put('.clinerules/logo.png', 'not text rules');
    put('.roorules', 'roo file rule');
    put('.roo/rules/01-style.md', 'roo folder rule');
    put('.turnstone/AGENTS.md', 'user rule', home);
    const found = await load();
    assert.deepEqual(found.files.map((f) => f.label), [
      'AGENTS.md',
      'CLAUDE.md',
      '.github/copilot-instructions.md',
      '.clinerules/a.md',
      '.clinerules/b.md',
      '.roorules',
      '.roo/rules/01-style.md',
      '~/.turnstone/AGENTS.md',
    ]);
    assert.deepEqual(found.notes, []);
    assert.match(found.text, /Instructions from AGENTS\.md:\nagents rule\n\nInstructions from CLAUDE\.md:\nclaude rule/);
    assert.match(found.text, /Instructions from ~\/\.turnstone\/AGENTS\.md:\nuser rule$/);
    assert.ok(found.text.indexOf('cline a') < found.text.indexOf('cline b'));
    assert.equal(found.files.at(-1)!.scope, 'user');
    assert.equal(found.files[0]!.path, path.join(ws, 'AGENTS.md'));
  });

  it('takes .clinerules as a single file too, and finds nothing in an empty workspace', async () => {
    assert.deepEqual(await load(), { files: [], notes: [], text: '' });
    put('.clinerules', 'one file of rules');
    const found = await load();
    assert.deepEqual(found.files.map((f) => f.label), ['.clinerules']);
  });

  it('goes after Turnstone\'s own prompt in the system prompt', async () => {
    put('AGENTS.md', 'Use tabs.');
    const found = await load();
    const prompt = buildSystemPrompt({ workspaceRoot: ws, platform: 'linux', host: 'test', date: '2026-11-30', extra: found.text });
    assert.ok(prompt.startsWith('You are Turnstone'));
    assert.ok(prompt.endsWith('Instructions from AGENTS.md:\nUse tabs.'));
  });

  it('caps each file and the total, and says what was cut', async () => {
    put('AGENTS.md', 'a'.repeat(150));
    put('CLAUDE.md', 'c'.repeat(80));
    put('.roorules', 'r'.repeat(10));
    const found = await load({ perFile: 100, total: 160 });
    assert.deepEqual(found.files.map((f) => [f.label, f.chars, f.included]), [
      ['AGENTS.md', 150, 100],
      ['CLAUDE.md', 80, 60],
    ]);
    assert.equal(found.notes.length, 3);
    assert.match(found.notes[0]!, /AGENTS\.md was cut to its first 100 of 150 characters \(the 100-character cap per file\)/);
    assert.match(found.notes[1]!, /CLAUDE\.md was cut to its first 60 of 80 characters \(the 160-character total/);
    assert.match(found.notes[2]!, /\.roorules was left out/);
    // The model is told too, where the cut is.
    assert.match(found.text, /a{100}\n\[Turnstone: AGENTS\.md was cut/);
    assert.ok(!found.text.includes('a'.repeat(101)));
  });

  it('does not follow a symlink leading outside the workspace (file or folder), but one inside it', async () => {
    put('secret.md', 'outside secret', tmp);
    put('outside-rules/x.md', 'outside rule', tmp);
    symlinkSync(path.join(tmp, 'secret.md'), path.join(ws, 'AGENTS.md'));
    symlinkSync(path.join(tmp, 'outside-rules'), path.join(ws, '.clinerules'));
    put('docs/claude.md', 'inside via link');
    symlinkSync(path.join(ws, 'docs/claude.md'), path.join(ws, 'CLAUDE.md'));
    mkdirSync(path.join(ws, '.roo/rules'), { recursive: true });
    symlinkSync(path.join(tmp, 'secret.md'), path.join(ws, '.roo/rules/leak.md'));
    const found = await load();
    assert.deepEqual(found.files.map((f) => f.label), ['CLAUDE.md']);
    assert.ok(!found.text.includes('outside'));
    assert.deepEqual(found.notes.map((n) => n.split(' ')[0]), ['AGENTS.md', '.clinerules', '.roo/rules/leak.md']);
    assert.match(found.notes[0]!, /link to a place outside the workspace/);
  });

  it('skips a binary file with a note and drops a UTF-8 BOM', async () => {
    put('AGENTS.md', '\ufeffbom rule');
    writeFileSync(path.join(ws, 'CLAUDE.md'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    const found = await load();
    assert.deepEqual(found.files.map((f) => f.label), ['AGENTS.md']);
    assert.match(found.text, /AGENTS\.md:\nbom rule/);
    assert.match(found.notes[0]!, /CLAUDE\.md could not be read \(it is a binary file\)/);
  });

  it('S7: the prefix is byte-identical across the steps of a turn and changes once when a file changed', async () => {
    put('AGENTS.md', 'version one');
    const model = new ScriptedModel([
      step('looking', [{ id: 'g1', name: 'glob_search', input: { pattern: '*.md' } }]),
      step('done one'),
      step('looking again', [{ id: 'g2', name: 'glob_search', input: { pattern: '*.md' } }]),
      step('done two'),
      step('done three'),
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig });
    const promptNow = async () => buildSystemPrompt({ workspaceRoot: ws, platform: 'linux', host: 'test', date: '2026-11-30', extra: (await load()).text });
    // What the editor does at the start of every turn: a fresh context with the instructions of the moment.
    const context = async () => ({ model, tools: memoryTools(), config: { ...baseConfig, systemPrompt: await promptNow() } });
    await rt.runTurn('one', { context: await context() });
    put('AGENTS.md', 'version two');
    await rt.runTurn('two', { context: await context() });
    await rt.runTurn('three', { context: await context() });
    const systems = model.requests.map((r) => r.system);
    assert.equal(systems.length, 5);
    assert.ok(systems[0]!.includes('version one'));
    assert.equal(systems[1], systems[0]);
    assert.ok(systems[2]!.includes('version two'));
    assert.equal(systems[3], systems[2]);
    // Unchanged files: the same bytes as the turn before, so the cache keeps hitting.
    assert.equal(systems[4], systems[2]);
  });

  it('27: a turn running keeps its context: another turn (with another prompt) is refused until it ends', async () => {
    const gate = deferred();
    const model = new ScriptedModel([
      async function* () {
        await gate.promise;
        yield* step('ok');
      },
    ]);
    const rt = new ConversationRuntime({ model, tools: memoryTools() }, { ...baseConfig });
    const turn = rt.runTurn('hi');
    await new Promise((r) => setImmediate(r));
    await assert.rejects(rt.runTurn('again', { context: { model, tools: memoryTools(), config: { ...baseConfig, systemPrompt: 'other' } } }), /a turn is already running/);
    gate.resolve();
    assert.equal((await turn).outcome, 'completed');
    assert.equal(model.requests[0]!.system, baseConfig.systemPrompt);
  });

  it('24.6: an instruction or command file that is a link to a secret is skipped with a note, in plan mode too (no tool use needed)', async () => {
    put('.env', 'TOKEN=secret-in-env');
    put('config/prod.pem', 'secret-in-pem');
    symlinkSync('.env', path.join(ws, 'AGENTS.md'));
    mkdirSync(path.join(ws, '.clinerules'));
    symlinkSync('../config/prod.pem', path.join(ws, '.clinerules', 'x.md'));
    put('CLAUDE.md', 'ordinary rule');
    mkdirSync(path.join(home, '.turnstone'), { recursive: true });
    put('.ssh/id_rsa', 'secret-in-home-key', home);
    symlinkSync(path.join(home, '.ssh', 'id_rsa'), path.join(home, '.turnstone', 'AGENTS.md'));
    const found = await load();
    assert.doesNotMatch(found.text, /secret-in/);
    assert.match(found.text, /ordinary rule/);
    assert.equal(found.notes.filter((n) => /may hold secrets/.test(n)).length, 3, found.notes.join('\n'));
    mkdirSync(path.join(ws, '.claude', 'commands'), { recursive: true });
    symlinkSync('../../.env', path.join(ws, '.claude', 'commands', 'leak.md'));
    put('.turnstone/commands/review.md', 'review $ARGUMENTS');
    const commands = await loadCustomSlashCommands(nodeInstructionReader, ws, sensitiveFileMatcher());
    assert.deepEqual(commands.custom.map((c) => c.name), ['review']);
    assert.match(commands.notes.join('\n'), /leak\.md was not read: it leads to \.env/);
  });
});
