// Issue 29: Agent Skills found in the workspace's and the user's folders, and
// the short section of the system prompt that names them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeInstructionReader } from '../../../src/runtime/context/instructions-node';
import { discoverSkills, skillCutNote, skillListing, skillPromptSection } from '../../../src/runtime/context/skills';
import { buildSystemPrompt } from '../../../src/runtime/context/system-prompt';
import { sensitiveFileMatcher } from '../../../src/runtime/policy/sensitive-files';

function write(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

const skillMd = (name: string, description: string, body = `Instructions of ${name}: SECRET-BODY-${name}`) => `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`;

describe('29 skills: discovery and the system prompt', () => {
  let base: string;
  let ws: string;
  let home: string;
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-skills-')));
    ws = path.join(base, 'ws');
    home = path.join(base, 'home');
    fs.mkdirSync(ws);
    fs.mkdirSync(home);
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  const discover = (extra: Partial<Parameters<typeof discoverSkills>[1]> = {}) =>
    discoverSkills(nodeInstructionReader, { workspaceFolders: [ws], home, trusted: true, sensitive: sensitiveFileMatcher(), ...extra });

  it('finds SKILL.md folders in .turnstone/skills, .claude/skills, .github/skills and ~/.turnstone/skills, sorted by name; the workspace\'s win', async () => {
    write(path.join(ws, '.turnstone/skills/pdf/SKILL.md'), skillMd('pdf', 'Fill PDF forms'));
    write(path.join(ws, '.claude/skills/release/SKILL.md'), skillMd('release', 'Cut a release'));
    write(path.join(ws, '.github/skills/triage/SKILL.md'), skillMd('triage', 'Triage issues'));
    write(path.join(ws, '.github/skills/no-skill-md/README.md'), 'not a skill');
    write(path.join(home, '.turnstone/skills/notes/SKILL.md'), skillMd('notes', 'Keep notes'));
    write(path.join(home, '.turnstone/skills/pdf/SKILL.md'), skillMd('pdf', 'My own PDF skill'));
    const set = await discover();
    assert.deepEqual(
      set.skills.map((s) => [s.name, s.description, s.scope, s.label]),
      [
        ['notes', 'Keep notes', 'user', '~/.turnstone/skills/notes'],
        ['pdf', 'Fill PDF forms', 'workspace', '.turnstone/skills/pdf'],
        ['release', 'Cut a release', 'workspace', '.claude/skills/release'],
        ['triage', 'Triage issues', 'workspace', '.github/skills/triage'],
      ],
    );
    assert.equal(set.skills[1]!.dir, path.join(ws, '.turnstone/skills/pdf'));
    assert.equal(set.skills[1]!.realDir, path.join(ws, '.turnstone/skills/pdf'));
    assert.deepEqual(set.problems, ["~/.turnstone/skills/pdf is not used: the skill 'pdf' from .turnstone/skills/pdf comes first."]);
    assert.match(skillListing(set), /- pdf: Fill PDF forms \(\.turnstone\/skills\/pdf\)/);
  });

  it('an untrusted workspace\'s skills are not loaded; the user\'s are', async () => {
    write(path.join(ws, '.claude/skills/release/SKILL.md'), skillMd('release', 'Cut a release'));
    write(path.join(home, '.turnstone/skills/notes/SKILL.md'), skillMd('notes', 'Keep notes'));
    const set = await discover({ trusted: false });
    assert.deepEqual(set.skills.map((s) => s.name), ['notes']);
  });

  it('a SKILL.md that is a link to a secret, or out of its folder, and a skill folder linked out of the workspace are skipped with a problem line', async () => {
    write(path.join(ws, '.env'), 'TOKEN=very-secret');
    fs.mkdirSync(path.join(ws, '.claude/skills/leaky'), { recursive: true });
    fs.symlinkSync(path.join(ws, '.env'), path.join(ws, '.claude/skills/leaky/SKILL.md'));
    write(path.join(ws, '.claude/skills/keyed/server.pem'), 'PRIVATE');
    fs.symlinkSync(path.join(ws, '.claude/skills/keyed/server.pem'), path.join(ws, '.claude/skills/keyed/SKILL.md'));
    write(path.join(base, 'outside/SKILL.md'), skillMd('outside', 'Not in the workspace'));
    fs.symlinkSync(path.join(base, 'outside'), path.join(ws, '.claude/skills/linked'));
    // The user's own folder may be a link (their choice), its SKILL.md still not a secret.
    write(path.join(base, 'shared/team/SKILL.md'), skillMd('team', 'Team conventions'));
    fs.mkdirSync(path.join(home, '.turnstone/skills'), { recursive: true });
    fs.symlinkSync(path.join(base, 'shared/team'), path.join(home, '.turnstone/skills/team'));
    const set = await discover();
    assert.deepEqual(set.skills.map((s) => [s.name, s.realDir]), [['team', path.join(base, 'shared/team')]]);
    const text = set.problems.join('\n');
    assert.match(text, /\.claude\/skills\/leaky\/SKILL\.md was not read: it is a link to .*\.env, outside its folder/);
    assert.match(text, /\.claude\/skills\/keyed\/SKILL\.md was not read: it leads to server\.pem, a file that may hold secrets \(matches \*\.pem\)/);
    assert.match(text, /\.claude\/skills\/linked\/ was not read: it is a link to a place outside the workspace/);
    assert.ok(!text.includes('very-secret'));
  });

  it('no description, a bad name or broken front matter: a problem line, never a throw', async () => {
    write(path.join(ws, '.turnstone/skills/quiet/SKILL.md'), '---\nname: quiet\n---\nBody');
    write(path.join(ws, '.turnstone/skills/bad/SKILL.md'), '---\nname: has space\ndescription: x\n---\nBody');
    write(path.join(ws, '.turnstone/skills/folder-name/SKILL.md'), '---\ndescription: Named by its folder\n---\nBody');
    write(path.join(ws, '.turnstone/skills/open/SKILL.md'), '---\ndescription: never closed\nBody');
    const set = await discover();
    assert.deepEqual(set.skills.map((s) => s.name), ['folder-name']);
    const text = set.problems.join('\n');
    assert.match(text, /quiet\/SKILL\.md is not used: its front matter has no `description`/);
    assert.match(text, /bad\/SKILL\.md is not used: 'has space' is not a usable skill name/);
    assert.match(text, /open\/SKILL\.md: its front matter has no closing `---`/);
  });

  it('the system prompt holds each skill\'s name and description, never its body; sorted, so it is the same from request to request', async () => {
    write(path.join(ws, '.claude/skills/zeta/SKILL.md'), skillMd('zeta', 'Last one'));
    write(path.join(ws, '.turnstone/skills/alpha/SKILL.md'), skillMd('alpha', 'First one'));
    const set = await discover();
    const ctx = { workspaceRoot: ws, platform: 'linux', host: 'tests', date: '2026-12-02' };
    const prompt = buildSystemPrompt({ ...ctx, skills: set.skills });
    assert.match(prompt, /\n- alpha: First one\n- zeta: Last one/);
    assert.match(prompt, /call the skill tool with its name/);
    assert.ok(!prompt.includes('SECRET-BODY'), 'no skill body in the system prompt');
    assert.equal(buildSystemPrompt({ ...ctx, skills: [...set.skills].reverse() }), prompt);
    assert.ok(!buildSystemPrompt(ctx).includes('Skills:'), 'no section without skills');
  });

  it('the section is capped at N skills and M characters, and says which were cut', () => {
    const skills = Array.from({ length: 8 }, (_, i) => ({ name: `s${i}`, description: `does thing ${i}` }));
    const byCount = skillPromptSection(skills, { maxSkills: 5, maxChars: 10_000, maxDescriptionChars: 300 });
    assert.deepEqual(byCount.cut, ['s5', 's6', 's7']);
    assert.match(byCount.text, /- s4: does thing 4\n\(3 more not listed here, to keep this short: s5, s6, s7\./);
    const long = [{ name: 'a', description: 'x'.repeat(500) }, { name: 'b', description: 'short' }, { name: 'c', description: 'y'.repeat(400) }];
    const byChars = skillPromptSection(long, { maxSkills: 50, maxChars: 650, maxDescriptionChars: 300 });
    assert.match(byChars.text, /- a: x{299}…\n/);
    assert.deepEqual(byChars.cut, ['c']);
    assert.match(byChars.text, /- b: short/);
    assert.match(skillCutNote(byChars.cut)!, /1 skill was left out of the system prompt .*: c\./);
    assert.equal(skillCutNote([]), undefined);
  });
});
