// Issue 29: the skill tool (a found skill's SKILL.md body and its files), and
// read_file's reach into a found skill's folder: read-only, that folder only,
// links resolved (one leading out of the folder is outside the workspace again).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nodeInstructionReader } from '../../../src/runtime/context/instructions-node';
import { discoverSkills, type Skill } from '../../../src/runtime/context/skills';
import { PermissionPolicy } from '../../../src/runtime/policy/permissions';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { ctx, makeNodeEnv, type NodeToolEnv } from './helpers';

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

describe('29 skills: the skill tool and read_file in a skill folder', () => {
  let env: NodeToolEnv;
  let skills: Skill[];
  let home: string;
  let userSkill: string;
  beforeEach(async () => {
    env = await makeNodeEnv();
    home = path.join(env.base, 'home');
    userSkill = path.join(home, '.turnstone/skills/pdf');
    write(path.join(userSkill, 'SKILL.md'), '---\nname: pdf\ndescription: Fill PDF forms\n---\n# PDF\nRun scripts/fill.py on the form.\n');
    write(path.join(userSkill, 'scripts/fill.py'), 'print("fill")\n');
    write(path.join(userSkill, 'reference.md'), 'Field names.\n');
    write(path.join(userSkill, 'cert.pem'), 'PRIVATE');
    write(path.join(env.base, 'outside.txt'), 'not part of the skill\n');
    fs.symlinkSync(path.join(env.base, 'outside.txt'), path.join(userSkill, 'escape.txt'));
    write(path.join(env.root, '.claude/skills/lint/SKILL.md'), '---\nname: lint\ndescription: Lint the code\n---\nRun the linter.\n');
    skills = (await discoverSkills(nodeInstructionReader, { workspaceFolders: [env.root], home, trusted: true, sensitive: sensitiveFileMatcher() })).skills;
    // Made after discovery, as each turn's executor is: the tool is offered only when skills were found.
    env.executor = executorWith(env, () => skills);
  });
  afterEach(() => env.cleanup());

  it('is offered only when skills were found; returns the body and the other files (not secrets, not links out of the folder)', async () => {
    assert.ok(env.executor.definitions().some((d) => d.name === 'skill'));
    const bare = await makeNodeEnv();
    assert.ok(!bare.executor.definitions().some((d) => d.name === 'skill'), 'no skills, no tool');
    await bare.cleanup();

    assert.equal(env.executor.isReadOnly('skill'), true);
    assert.deepEqual(await env.executor.assess('skill', { name: 'pdf' }), { need: 'read', subject: 'pdf' });
    const out = await env.executor.execute('skill', { name: 'pdf' }, ctx());
    assert.equal(out.isError, false);
    assert.match(out.content as string, /^Skill 'pdf' \(~\/\.turnstone\/skills\/pdf; folder .*\)\.\n\n# PDF\nRun scripts\/fill\.py on the form\./);
    assert.ok(!(out.content as string).includes('description: Fill PDF forms'), 'front matter is not repeated');
    assert.match(out.content as string, /Files of this skill \(read them with read_file under .*pdf\):\n- reference\.md\n- scripts\/fill\.py$/);
    assert.ok(!(out.content as string).includes('cert.pem') && !(out.content as string).includes('escape.txt'));

    const missing = await env.executor.execute('skill', { name: 'nope' }, ctx());
    assert.equal(missing.isError, true);
    assert.match(missing.content as string, /There is no skill named 'nope'\. Skills available: lint, pdf\./);
  });

  it('a SKILL.md swapped for a link to a secret after discovery is not read', async () => {
    fs.rmSync(path.join(userSkill, 'SKILL.md'));
    fs.symlinkSync(path.join(userSkill, 'cert.pem'), path.join(userSkill, 'SKILL.md'));
    const out = await env.executor.execute('skill', { name: 'pdf' }, ctx());
    assert.equal(out.isError, true);
    assert.match(out.content as string, /may hold secrets \(matches \*\.pem\); it was not read/);
    assert.ok(!(out.content as string).includes('PRIVATE'));
  });

  it('read_file reads a user skill\'s files like the workspace\'s; a link in it leading out, a file next to it and writes there are outside the workspace', async () => {
    const policy = new PermissionPolicy('ask');
    const decide = async (tool: string, input: Record<string, unknown>) => policy.decide({ toolName: tool, readOnly: env.executor.isReadOnly(tool)!, assessment: await env.executor.assess(tool, input) }).kind;

    const inside = await env.executor.assess('read_file', { path: path.join(userSkill, 'scripts/fill.py') });
    assert.equal(inside.outsideWorkspace, undefined);
    assert.equal(await decide('read_file', { path: path.join(userSkill, 'scripts/fill.py') }), 'allow');
    assert.equal(await decide('read_file', { path: '~/.turnstone/skills/pdf/reference.md' }), 'allow');
    const read = await env.executor.execute('read_file', { path: path.join(userSkill, 'scripts/fill.py') }, ctx());
    assert.match(read.content as string, /print\("fill"\)/);

    const escape = await env.executor.assess('read_file', { path: path.join(userSkill, 'escape.txt') });
    assert.deepEqual(escape.outsideWorkspace, [path.join(env.base, 'outside.txt')]);
    assert.equal(await decide('read_file', { path: path.join(userSkill, 'escape.txt') }), 'ask');
    assert.equal(await decide('read_file', { path: path.join(home, '.turnstone/skills/other.md') }), 'ask');
    assert.equal(await decide('read_file', { path: path.join(userSkill, '..', '..', 'x.md') }), 'ask');
    // A secret in the skill folder still asks.
    assert.match((await env.executor.assess('read_file', { path: path.join(userSkill, 'cert.pem') })).sensitive ?? '', /may hold secrets/);
    // Writes stay outside the workspace.
    const writeAssessment = await env.executor.assess('write_file', { path: path.join(userSkill, 'new.md'), content: 'x' });
    assert.deepEqual(writeAssessment.outsideWorkspace, [path.join(userSkill, 'new.md')]);
    assert.equal(await decide('edit_file', { path: path.join(userSkill, 'reference.md'), old_string: 'Field', new_string: 'Form' }), 'ask');
  });

  it('a skill not found (an empty list) gives read_file no reach', async () => {
    const fresh = executorWith(env, () => []);
    const assessment = await fresh.assess('read_file', { path: path.join(userSkill, 'reference.md') });
    assert.deepEqual(assessment.outsideWorkspace, [path.join(userSkill, 'reference.md')]);
  });
});

/** Another executor over the same workspace folder, with the given skills. */
function executorWith(env: NodeToolEnv, skills: () => readonly Skill[]): NodeToolEnv['executor'] {
  return createToolExecutor({ workspace: new NodeWorkspace(env.root), shell: new NodeShell() }, { outputDir: env.outputDir, homeDir: path.join(env.base, 'home'), skills });
}
