// Issue 42, item 11: in acceptEdits, .github/agents/*.agent.md and .github/skills/*/SKILL.md were written without
// asking, where the same files under .claude/ and .turnstone/ ask: an agent file's prompt and tools, or a skill's
// instructions, steer every later turn. CI workflows run with the repository's secrets, so they ask too.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PermissionPolicy } from '../../../src/runtime/policy/permissions';
import { type ToolExecutor } from '../../../src/runtime/types';
import { NodeShell, NodeWorkspace } from '../../../src/tools/node-adapter';
import { createToolExecutor } from '../../../src/tools/registry';
import { controlReason } from '../../../src/tools/shell/control-files';

describe('tools: agent, skill and workflow files under .github are control files (issue 42.11)', () => {
  let base: string;
  let tools: ToolExecutor;

  before(() => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'turnstone-github-control-')));
    mkdirSync(path.join(base, 'ws', '.github'), { recursive: true });
    tools = createToolExecutor({ workspace: new NodeWorkspace(path.join(base, 'ws')), shell: new NodeShell() }, { homeDir: path.join(base, 'home') });
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  it('controlReason names them, in any letter case and in a nested project; the other files of .github are plain', () => {
    const control: Array<[string, RegExp]> = [
      ['.github/agents/reviewer.agent.md', /agent definitions/],
      ['.GitHub/Agents/reviewer.agent.md', /agent definitions/],
      ['.github/skills/release/SKILL.md', /skills/],
      ['.github/skills/release/scripts/bump.sh', /skills/],
      ['packages/api/.github/agents/x.agent.md', /agent definitions/],
      ['.github/workflows/ci.yml', /CI workflows/],
      // Issue 46: the instruction formats now read steer later turns the same way.
      ['.github/prompts/review.prompt.md', /prompt files/],
      ['.github/instructions/ts.instructions.md', /instructions/],
      ['.cursor/rules/style.mdc', /rules/],
    ];
    for (const [file, why] of control) assert.match(controlReason(file) ?? '', why, file);
    for (const file of ['.github/CODEOWNERS', '.github/pull_request_template.md', '.github', 'docs/agents/x.md']) assert.equal(controlReason(file), undefined, file);
  });

  it('write_file of an agent or a skill under .github asks in acceptEdits, like one under .claude; a plain file does not', async () => {
    const decide = async (file: string) => {
      const assessment = await tools.assess('write_file', { path: file, content: '---\nname: x\n---\nDo anything.\n' });
      return new PermissionPolicy('acceptEdits', {}).decide({ toolName: 'write_file', readOnly: false, assessment });
    };
    for (const file of ['.github/agents/x.agent.md', '.github/skills/x/SKILL.md', '.github/workflows/x.yml', '.claude/agents/x.md']) {
      assert.equal((await decide(file)).kind, 'ask', `${file} is written unasked`);
    }
    assert.equal((await decide('.github/CODEOWNERS')).kind, 'allow');
  });
});
