// Issue 46: the instruction formats people already keep — GEMINI.md, Cursor's
// `.cursor/rules/*.mdc`, Copilot's `.github/instructions/*.instructions.md` and
// `.github/prompts/*.prompt.md` — read with the same care as AGENTS.md. Each
// fixture repository is written here; what applies is checked where the model
// sees it: the system prompt of its request, or a tool result's text.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import manifest from '../../../package.json';
import { parseSettingsObject, type SettingSchema } from '../../../src/agent/settings';
import { createTurnContext } from '../../../src/agent/turn-context';
import { loadProjectInstructions, ruleFileMeaning, splitGlobs } from '../../../src/runtime/context/instructions';
import { nodeInstructionReader } from '../../../src/runtime/context/instructions-node';
import { PathScopedInstructions } from '../../../src/runtime/context/path-scoped';
import { loadCustomSlashCommands, resolveSlash } from '../../../src/runtime/context/slash-commands';
import { buildSystemPrompt } from '../../../src/runtime/context/system-prompt';
import { ConversationRuntime } from '../../../src/runtime/loop/conversation';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';
import { type Message, type ToolResultBlock } from '../../../src/runtime/types';
import { NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { ScriptedModel, step } from './fakes';

const schema = manifest.contributes.configuration.properties as Record<string, SettingSchema>;

describe('runtime: more instruction formats (issue 46)', () => {
  let tmp: string;
  let ws: string;
  const put = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    writeFileSync(path.join(ws, rel), text);
  };
  const load = () => loadProjectInstructions(nodeInstructionReader, { workspaceRoot: ws, sensitive: sensitiveFileMatcher() });

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'turnstone-formats-'));
    ws = path.join(tmp, 'ws');
    mkdirSync(ws);
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  /** One session as the CLI and the editor build it: instructions read, the turn context's tools (real file tools), a scripted model. */
  async function session(...turns: { prompt: string; script: Parameters<ScriptedModel['push']> }[]) {
    const found = await load();
    const scoped = new PathScopedInstructions();
    scoped.update(found.pathScoped, ws);
    const model = new ScriptedModel([]);
    const context = createTurnContext({
      settings: parseSettingsObject({}, schema, 'test'),
      permissionMode: 'bypassPermissions',
      model,
      builtInTools: (wrap) => createToolExecutor({ workspace: wrap(new NodeWorkspace(ws)) }, { outputDir: path.join(tmp, 'out') }),
      systemPrompt: buildSystemPrompt({ workspaceRoot: ws, platform: process.platform, host: 'a test', date: '2026-12-06', ...(found.text ? { extra: found.text } : {}) }),
      hooksCwd: undefined,
      pathScoped: scoped,
      warn: () => undefined,
    });
    const rt = new ConversationRuntime({ model: context.model, tools: context.tools }, { ...context.config, env: {} });
    for (const t of turns) {
      model.push(...t.script);
      const result = await rt.runTurn(t.prompt);
      assert.equal(result.outcome, 'completed');
    }
    return { found, model, messages: rt.messages };
  }

  const toolResult = (messages: readonly Message[], id: string): string => {
    for (const m of messages) {
      if (m.role !== 'user') continue;
      for (const b of m.content) if (b.type === 'tool_result' && b.tool_use_id === id) return (b as ToolResultBlock).content;
    }
    throw new Error(`no result for ${id}`);
  };

  it('issue 46 formats: GEMINI.md joins the system prompt after CLAUDE.md, under its name, with the same caps', async () => {
    put('CLAUDE.md', 'Claude rule.');
    put('GEMINI.md', 'Use tabs, never spaces.');
    const { model, found } = await session({ prompt: 'hello', script: [step('ok')] });
    const system = model.requests[0]!.system;
    assert.ok(system.includes('Instructions from GEMINI.md:\nUse tabs, never spaces.'), system);
    assert.ok(system.indexOf('Instructions from CLAUDE.md') < system.indexOf('Instructions from GEMINI.md'));
    assert.deepEqual(found.files.map((f) => f.label), ['CLAUDE.md', 'GEMINI.md']);

    put('GEMINI.md', 'g'.repeat(40_000));
    const big = await load();
    assert.ok(big.notes.some((n) => /^GEMINI\.md was cut to its first 32,000 of 40,000 characters/.test(n)), big.notes.join('\n'));
  });

  it('issue 46 formats: Cursor rules — alwaysApply joins the prompt, a description-only rule is listed, a globs rule comes with a matching file only', async () => {
    put('.cursor/rules/always.mdc', '---\ndescription: House style\nglobs:\nalwaysApply: true\n---\nAlways write British English.');
    put('.cursor/rules/db.mdc', '---\ndescription: How to write a database migration\nalwaysApply: false\n---\nMIGRATION-RULE-BODY: one file per change.');
    put('.cursor/rules/react.mdc', '---\ndescription: React components\nglobs: src/**/*.tsx, *.jsx\nalwaysApply: false\n---\nREACT-RULE: components are function components.');
    put('.cursor/rules/notes.txt', 'not a rule file');
    put('.cursorrules', 'Old single-file Cursor rule.');
    put('src/util.ts', 'export const x = 1;\n');
    put('src/App.tsx', 'export const App = () => null;\n');
    put('src/Other.tsx', 'export const Other = () => null;\n');
    const { model, messages, found } = await session({
      prompt: 'look around',
      script: [
        step('', [{ id: 'r1', name: 'read_file', input: { path: 'src/util.ts' } }]),
        step('', [{ id: 'r2', name: 'read_file', input: { path: path.join(ws, 'src', 'App.tsx') } }]),
        step('', [{ id: 'r3', name: 'read_file', input: { path: 'src/Other.tsx' } }]),
        step('done'),
      ],
    });
    const system = model.requests[0]!.system;
    assert.ok(system.includes('Instructions from .cursor/rules/always.mdc:\nAlways write British English.'), system);
    assert.ok(!system.includes('alwaysApply'), 'front matter is not part of the rule');
    assert.ok(system.includes('Instructions from .cursorrules:\nOld single-file Cursor rule.'));
    assert.ok(system.includes('- .cursor/rules/db.mdc: How to write a database migration'), system);
    assert.ok(!system.includes('MIGRATION-RULE-BODY'), 'a listed rule is read by the model when relevant, not sent');
    assert.ok(system.includes('- .cursor/rules/react.mdc: src/**/*.tsx, *.jsx'), system);
    assert.ok(!system.includes('REACT-RULE'));
    assert.deepEqual(
      found.files.map((f) => [f.label, f.applies ?? 'prompt']),
      [
        ['.cursorrules', 'prompt'],
        ['.cursor/rules/always.mdc', 'prompt'],
        ['.cursor/rules/db.mdc', 'listed'],
        ['.cursor/rules/react.mdc', 'path'],
      ],
    );
    // Not for another file; once for the first matching one (an absolute path too); not again.
    assert.ok(!toolResult(messages, 'r1').includes('REACT-RULE'), toolResult(messages, 'r1'));
    const r2 = toolResult(messages, 'r2');
    assert.match(r2, /export const App/);
    assert.match(r2, /<instructions for path "src\/App\.tsx" from "\.cursor\/rules\/react\.mdc">\n[^\n]*\nREACT-RULE: components are function components\.\n<\/instructions>$/);
    assert.ok(!toolResult(messages, 'r3').includes('REACT-RULE'));
    // The model saw it in the request after the read.
    assert.ok(JSON.stringify(model.requests[2]!.messages).includes('REACT-RULE'));
  });

  it('issue 46 formats: Copilot .instructions.md — applyTo ** joins the prompt, a path-scoped one comes with edit_file/write_file of a matching file, once per session', async () => {
    put('.github/instructions/general.instructions.md', '---\napplyTo: "**"\n---\nCOPILOT-GENERAL: keep functions short.');
    put('.github/instructions/py.instructions.md', "---\napplyTo: '**/*.py,scripts/*.{sh,bash}'\ndescription: Python style\n---\nPY-RULE: type hints everywhere.");
    put('.github/instructions/manual.instructions.md', '---\ndescription: Release checklist\n---\nRELEASE-BODY');
    put('.github/instructions/readme.md', 'not an instructions file');
    put('README.md', 'hello\n');
    put('tools/run.py', 'print(1)\n');
    const { model, messages } = await session(
      {
        prompt: 'edit things',
        script: [
          step('', [{ id: 'e1', name: 'read_file', input: { path: 'README.md' } }]),
          step('', [{ id: 'e2', name: 'edit_file', input: { path: 'README.md', old_string: 'hello', new_string: 'hi' } }]),
          step('', [{ id: 'e3', name: 'read_file', input: { path: 'tools/run.py' } }]),
          step('', [{ id: 'e4', name: 'edit_file', input: { path: 'tools/run.py', old_string: 'print(1)', new_string: 'print(2)' } }]),
          step('done'),
        ],
      },
      { prompt: 'more', script: [step('', [{ id: 'w1', name: 'write_file', input: { path: 'scripts/go.sh', content: 'echo hi\n' } }]), step('done')] },
    );
    const system = model.requests[0]!.system;
    assert.ok(system.includes('Instructions from .github/instructions/general.instructions.md:\nCOPILOT-GENERAL: keep functions short.'), system);
    assert.ok(system.includes('- .github/instructions/manual.instructions.md: Release checklist'));
    assert.ok(!system.includes('RELEASE-BODY'));
    assert.ok(!system.includes('PY-RULE'));
    assert.ok(!toolResult(messages, 'e1').includes('PY-RULE'));
    assert.ok(!toolResult(messages, 'e2').includes('PY-RULE'));
    assert.match(toolResult(messages, 'e3'), /<instructions for path "tools\/run\.py" from "\.github\/instructions\/py\.instructions\.md">[\s\S]*PY-RULE: type hints everywhere\./);
    assert.ok(!toolResult(messages, 'e4').includes('PY-RULE'), 'sent once per session');
    // A later turn of the same session, another matching file (the brace glob): the model has the rule already.
    assert.ok(!toolResult(messages, 'w1').includes('PY-RULE'));
    assert.match(toolResult(messages, 'w1'), /scripts\/go\.sh/);
  });

  it('issue 46 formats: a path-scoped rule comes with write_file of a new matching file, and again once the history no longer holds it', async () => {
    put('.github/instructions/sh.instructions.md', '---\napplyTo: scripts/*.{sh,bash}\n---\nSH-RULE: set -euo pipefail.');
    const found = await load();
    const scoped = new PathScopedInstructions();
    scoped.update(found.pathScoped, ws);
    assert.deepEqual(scoped.forPath('scripts/run.py'), []);
    assert.deepEqual(scoped.forPath('other/run.sh'), []);
    assert.deepEqual(scoped.forPath('scripts/run.bash').map((r) => r.label), ['.github/instructions/sh.instructions.md']);
    assert.deepEqual(scoped.forPath('scripts/go.sh'), []);
    scoped.forget();
    assert.equal(scoped.forPath('scripts/go.sh').length, 1);
    assert.equal(scoped.relativePath('../elsewhere/a.sh'), undefined);
    assert.equal(scoped.relativePath('~/a.sh'), undefined);

    const { messages } = await session({ prompt: 'write', script: [step('', [{ id: 'w', name: 'write_file', input: { path: 'scripts/new.sh', content: 'echo\n' } }]), step('done')] });
    assert.match(toolResult(messages, 'w'), /SH-RULE: set -euo pipefail\./);

    // A turn starting from a history that holds the rule (a resumed session) does not get it again; one whose
    // history lost it (compacted into a summary, a new session) does.
    const resumed = new PathScopedInstructions();
    resumed.update(found.pathScoped, ws);
    assert.deepEqual(resumed.sync(messages).forPath('scripts/x.sh'), []);
    const compacted: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Summary: wrote scripts/new.sh.' }] }];
    assert.equal(resumed.sync(compacted).forPath('scripts/x.sh').length, 1);
    // An edited rule is not the one in the history: it comes again.
    resumed.update([{ ...found.pathScoped![0]!, text: 'SH-RULE v2' }], ws);
    assert.equal(resumed.sync(messages).forPath('scripts/x.sh').length, 1);
  });

  it('issue 46 formats: what applied (the chip lists it): each rule the model has and the file it came with, told as it changes', async () => {
    put('.github/instructions/sh.instructions.md', '---\napplyTo: scripts/*.sh\n---\nSH-RULE.');
    put('.cursor/rules/py.mdc', '---\nglobs: "*.py"\n---\nPY-RULE.');
    const found = await load();
    const scoped = new PathScopedInstructions();
    let told = 0;
    scoped.onDidChangeApplied = () => told++;
    scoped.update(found.pathScoped, ws);
    // Read through a function: an assertion on the getter would narrow its type for the lines after it.
    const applied = () => scoped.applied;
    assert.deepEqual(applied(), []);
    scoped.forPath('scripts/a.sh');
    assert.deepEqual(applied(), [{ label: '.github/instructions/sh.instructions.md', path: 'scripts/a.sh' }]);
    assert.equal(told, 1);
    scoped.forPath('scripts/b.sh');
    assert.equal(told, 1, 'a rule already sent is not news');
    scoped.forPath('run.py');
    assert.deepEqual(applied().map((a) => a.path), ['scripts/a.sh', 'run.py']);
    assert.equal(told, 2);
    // A history that still holds the sh rule keeps it (with its path); the py rule it lost leaves the list.
    const history: Message[] = [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: `ok\n\n<instructions for path "scripts/a.sh" from ".github/instructions/sh.instructions.md">\nx\nSH-RULE.\n</instructions>` }] }];
    scoped.sync(history);
    assert.deepEqual(applied(), [{ label: '.github/instructions/sh.instructions.md', path: 'scripts/a.sh' }]);
    assert.equal(told, 3);
    scoped.forget();
    assert.deepEqual(applied(), []);
    assert.equal(told, 4);
    // A resumed session's runtime finds the rule in the history: listed without a path.
    const resumed = new PathScopedInstructions();
    resumed.update(found.pathScoped, ws);
    assert.deepEqual(resumed.sync(history).applied, [{ label: '.github/instructions/sh.instructions.md' }]);
  });

  it('issue 46 formats: globs and applyTo values are read as Cursor and Copilot write them', () => {
    assert.deepEqual(splitGlobs('src/**/*.{ts,tsx}, *.md'), ['src/**/*.{ts,tsx}', '*.md']);
    assert.deepEqual(splitGlobs(['./a/*.ts', '"b/**"']), ['a/*.ts', 'b/**']);
    assert.equal(ruleFileMeaning('copilot', '---\napplyTo: "**/*"\n---\nx').applies, 'always');
    assert.equal(ruleFileMeaning('copilot', 'no front matter').applies, 'listed');
    assert.equal(ruleFileMeaning('cursor', '---\nglobs: ["*.ts"]\nalwaysApply: false\n---\nx').applies, 'path');
    assert.equal(ruleFileMeaning('cursor', '---\nglobs: "*.ts"\nalwaysApply: true\n---\nx').applies, 'always');
  });

  it('issue 46 formats: Copilot prompt files are slash commands; ${input:…} and $ARGUMENTS take the text after the command', async () => {
    put('.github/prompts/explain.prompt.md', '---\ndescription: Explain a file to a newcomer\nmode: agent\nmodel: GPT-5\ntools: [codebase]\n---\nExplain ${input:file:Which file?} in ${workspaceFolderBasename} to a newcomer.');
    put('.github/prompts/plain.prompt.md', 'Summarise the changes.');
    put('.github/prompts/args.prompt.md', 'Fix $ARGUMENTS now.');
    put('.github/prompts/notes.md', 'not a prompt file');
    put('.turnstone/commands/plain.md', 'Turnstone wins.');
    const set = await loadCustomSlashCommands(nodeInstructionReader, ws, sensitiveFileMatcher());
    assert.deepEqual(set.custom.map((c) => [c.name, c.file]), [
      ['args', '.github/prompts/args.prompt.md'],
      ['explain', '.github/prompts/explain.prompt.md'],
      ['plain', '.turnstone/commands/plain.md'],
    ]);
    assert.equal(set.custom.find((c) => c.name === 'explain')!.description, 'Explain a file to a newcomer');
    assert.deepEqual(set.notes, ['.github/prompts/explain.prompt.md: `mode`, `tools`, `model` are not applied; /explain runs with the session\'s own mode, model and tools.']);
    const explain = resolveSlash('/explain src/a.ts', set.custom);
    assert.equal(explain.kind === 'custom' && explain.text, 'Explain src/a.ts in ws to a newcomer.');
    const args = resolveSlash('/args the flaky test', set.custom);
    assert.equal(args.kind === 'custom' && args.text, 'Fix the flaky test now.');

    // Through a turn: the request carries the expanded prompt.
    const { model } = await session({ prompt: (explain as { text: string }).text, script: [step('ok')] });
    assert.ok(JSON.stringify(model.requests[0]!.messages).includes('Explain src/a.ts in ws to a newcomer.'));
  });

  it('issue 46 formats: a rule, instructions or prompt file that is, or links to, a secret is skipped with a note', async () => {
    put('.env', 'API_KEY=sk-live-SECRET');
    mkdirSync(path.join(ws, '.cursor', 'rules'), { recursive: true });
    mkdirSync(path.join(ws, '.github', 'instructions'), { recursive: true });
    mkdirSync(path.join(ws, '.github', 'prompts'), { recursive: true });
    symlinkSync(path.join(ws, '.env'), path.join(ws, 'GEMINI.md'));
    symlinkSync(path.join(ws, '.env'), path.join(ws, '.cursor', 'rules', 'leak.mdc'));
    symlinkSync(path.join(ws, '.env'), path.join(ws, '.github', 'instructions', 'leak.instructions.md'));
    symlinkSync(path.join(ws, '.env'), path.join(ws, '.github', 'prompts', 'leak.prompt.md'));
    put('.cursor/rules/ok.mdc', '---\nalwaysApply: true\n---\nA fine rule.');
    const { model, found } = await session({ prompt: 'hello', script: [step('ok')] });
    const system = model.requests[0]!.system;
    assert.ok(!system.includes('SECRET'), system);
    assert.ok(system.includes('A fine rule.'));
    assert.deepEqual(found.files.map((f) => f.label), ['.cursor/rules/ok.mdc']);
    for (const label of ['GEMINI.md', '.github/instructions/leak.instructions.md', '.cursor/rules/leak.mdc']) {
      assert.ok(found.notes.some((n) => n.startsWith(`${label} was not read: it leads to .env, a file that may hold secrets`)), `${label}: ${found.notes.join('\n')}`);
    }
    const set = await loadCustomSlashCommands(nodeInstructionReader, ws, sensitiveFileMatcher());
    assert.deepEqual(set.custom, []);
    assert.match(set.notes.join('\n'), /\.github\/prompts\/leak\.prompt\.md was not read: it leads to \.env/);
  });
});
