// Issue 29: custom agent definitions read from the workspace's and the user's folders.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverCustomAgents } from '../../../src/agent/custom-agents';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const agentFile = (fields: Record<string, string>, body = 'You are a careful agent.') =>
  ['---', ...Object.entries(fields).map(([k, v]) => `${k}: ${v}`), '---', body, ''].join('\n');

describe('29 custom agents: discovery', () => {
  let base: string;
  let ws: string;
  let home: string;
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-agents-')));
    ws = path.join(base, 'ws');
    home = path.join(base, 'home');
    fs.mkdirSync(ws);
    fs.mkdirSync(home);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  const discover = (extra: Partial<Parameters<typeof discoverCustomAgents>[0]> = {}) =>
    discoverCustomAgents({ workspaceFolders: [ws], home, trusted: true, sensitive: sensitiveFileMatcher(), ...extra });

  it('reads the three workspace folders and the user\'s: front matter, tools as a YAML or comma list, model, body as the system prompt', async () => {
    write(path.join(ws, '.turnstone/agents/reviewer.md'), agentFile({ name: 'reviewer', description: 'Reviews changes', tools: '[read_file, grep_search]', model: 'claude-haiku' }, 'Review the diff.\nBe brief.'));
    write(path.join(ws, '.claude/agents/tester.md'), ['---', 'name: tester', 'description: Runs tests', 'tools:', '  - bash', '  - read_file', '---', 'Run the tests.'].join('\n'));
    write(path.join(ws, '.github/agents/docs.agent.md'), agentFile({ description: 'Writes docs', tools: 'read_file, write_file' }));
    // Not an agent file in .github/agents (it needs .agent.md).
    write(path.join(ws, '.github/agents/notes.md'), agentFile({ description: 'ignored' }));
    write(path.join(home, '.turnstone/agents/mine.md'), agentFile({ description: 'My own', model: 'inherit' }));
    const { agents, problems } = await discover();
    assert.deepEqual(problems, []);
    assert.deepEqual(
      agents.map((a) => [a.name, a.scope, a.tools, a.model]),
      [
        ['docs', 'workspace', ['read_file', 'write_file'], undefined],
        ['mine', 'user', undefined, undefined],
        ['reviewer', 'workspace', ['read_file', 'grep_search'], 'claude-haiku'],
        ['tester', 'workspace', ['bash', 'read_file'], undefined],
      ],
    );
    const reviewer = agents.find((a) => a.name === 'reviewer')!;
    assert.equal(reviewer.systemPrompt, 'Review the diff.\nBe brief.');
    assert.equal(reviewer.description, 'Reviews changes');
    assert.equal(reviewer.source, path.join(ws, '.turnstone/agents/reviewer.md'));
    assert.equal(agents.find((a) => a.name === 'docs')!.source, path.join(ws, '.github/agents/docs.agent.md'));
  });

  it('a workspace definition wins over the user\'s of the same name; an untrusted workspace gives only the user\'s', async () => {
    write(path.join(ws, '.claude/agents/helper.md'), agentFile({ description: 'Project helper' }));
    write(path.join(home, '.turnstone/agents/helper.md'), agentFile({ description: 'User helper' }));
    const trusted = await discover();
    assert.deepEqual(trusted.agents.map((a) => [a.name, a.description, a.scope]), [['helper', 'Project helper', 'workspace']]);
    assert.match(trusted.problems.join('\n'), /~\/\.turnstone\/agents\/helper\.md is not used: the agent 'helper' from \.claude\/agents\/helper\.md comes first/);
    const untrusted = await discover({ trusted: false });
    assert.deepEqual(untrusted.agents.map((a) => [a.name, a.description, a.scope]), [['helper', 'User helper', 'user']]);
    assert.deepEqual(untrusted.problems, []);
  });

  it('reserved names, no description, no body, a bad name and malformed front matter are problem lines, never throws', async () => {
    write(path.join(ws, '.turnstone/agents/explore.md'), agentFile({ description: 'Mine' }));
    write(path.join(ws, '.turnstone/agents/x.md'), agentFile({ name: 'General', description: 'Mine' }));
    write(path.join(ws, '.turnstone/agents/quiet.md'), agentFile({ name: 'quiet' }));
    write(path.join(ws, '.turnstone/agents/empty.md'), agentFile({ description: 'Nothing' }, ''));
    write(path.join(ws, '.turnstone/agents/bad.md'), agentFile({ name: '"has space"', description: 'x' }));
    write(path.join(ws, '.turnstone/agents/odd.md'), '---\ndescription: fine\n??? not yaml\n---\nPrompt.');
    write(path.join(ws, '.turnstone/agents/open.md'), '---\ndescription: never closed\nPrompt.');
    fs.writeFileSync(path.join(ws, '.turnstone/agents/bin.md'), Buffer.from([0x2d, 0, 1, 2]));
    const { agents, problems } = await discover();
    assert.deepEqual(agents.map((a) => a.name), ['odd']);
    const text = problems.join('\n');
    assert.match(text, /explore\.md is not used: 'explore' is the name of a built-in agent/);
    assert.match(text, /x\.md is not used: 'General' is the name of a built-in agent/);
    assert.match(text, /quiet\.md is not used: its front matter has no `description`/);
    assert.match(text, /empty\.md is not used: it has no text after the front matter/);
    assert.match(text, /bad\.md is not used: 'has space' is not a usable agent name/);
    assert.match(text, /odd\.md: line 3 of its front matter is not `key: value`/);
    assert.match(text, /open\.md: its front matter has no closing `---`/);
    assert.match(text, /bin\.md was not read: it is a binary file/);
  });

  it('a file that is a link out of its folder, or to a secret, is skipped with a problem line; a folder linked out of the workspace is not read', async () => {
    write(path.join(base, 'elsewhere/agent.md'), agentFile({ description: 'Outside' }));
    write(path.join(ws, '.turnstone/agents/.env.md'), 'SECRET=1');
    fs.mkdirSync(path.join(ws, '.claude/agents'), { recursive: true });
    fs.symlinkSync(path.join(base, 'elsewhere/agent.md'), path.join(ws, '.claude/agents/out.md'));
    write(path.join(ws, '.claude/agents/server.key'), 'PRIVATE KEY');
    fs.symlinkSync(path.join(ws, '.claude/agents/server.key'), path.join(ws, '.claude/agents/key.md'));
    fs.mkdirSync(path.join(ws, '.github'), { recursive: true });
    fs.symlinkSync(path.join(base, 'elsewhere'), path.join(ws, '.github/agents'));
    // In the user's folder a link to a secret is skipped too.
    write(path.join(home, '.turnstone/agents/id_rsa'), 'PRIVATE');
    fs.symlinkSync(path.join(home, '.turnstone/agents/id_rsa'), path.join(home, '.turnstone/agents/rsa.md'));
    // A link that stays in its folder and leads to no secret is read.
    write(path.join(home, '.turnstone/agents/real.txt'), agentFile({ name: 'linked', description: 'Through a link' }));
    fs.symlinkSync(path.join(home, '.turnstone/agents/real.txt'), path.join(home, '.turnstone/agents/linked.md'));
    const { agents, problems } = await discover();
    assert.deepEqual(agents.map((a) => a.name), ['linked']);
    const text = problems.join('\n');
    assert.match(text, /\.claude\/agents\/out\.md was not read: it is a link to .*elsewhere\/agent\.md, outside its folder/);
    assert.match(text, /\.claude\/agents\/key\.md was not read: it leads to .*server\.key, a file that may hold secrets \(matches \*\.key\)/);
    assert.match(text, /\.github\/agents\/ was not read: it is a link to a place outside the workspace/);
    assert.match(text, /\.turnstone\/agents\/\.env\.md was not read: .*may hold secrets \(matches \.env\*\)/);
    assert.match(text, /~\/\.turnstone\/agents\/rsa\.md was not read: .*may hold secrets \(matches id_rsa\*\)/);
    assert.ok(!text.includes('PRIVATE') && !text.includes('SECRET=1'), 'no secret text in problems');
  });

  it('several workspace folders: each one\'s definitions, the first folder\'s first; no folders and no home folder are fine', async () => {
    const second = path.join(base, 'second');
    write(path.join(ws, '.turnstone/agents/a.md'), agentFile({ description: 'first a' }));
    write(path.join(second, '.turnstone/agents/a.md'), agentFile({ description: 'second a' }));
    write(path.join(second, '.turnstone/agents/b.md'), agentFile({ description: 'second b' }));
    const { agents, problems } = await discover({ workspaceFolders: [ws, second] });
    assert.deepEqual(agents.map((a) => [a.name, a.description]), [['a', 'first a'], ['b', 'second b']]);
    assert.match(problems.join('\n'), /second\/\.turnstone\/agents\/a\.md is not used/);
    const none = await discoverCustomAgents({ workspaceFolders: [path.join(base, 'missing')], home: path.join(base, 'nohome'), trusted: true });
    assert.deepEqual(none, { agents: [], problems: [] });
  });
});
