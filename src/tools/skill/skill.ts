// The `skill` tool (contracts.md "Skills"): the system prompt lists the skills
// found (name and description only); calling this with a name returns the
// instructions in its SKILL.md and the other files of its folder, which
// read_file may then read (skillFolderOf), even for a skill of the user's
// outside the workspace. A skill is only one discovery found for this turn.
import * as path from 'node:path';
import { z } from 'zod';
import { parseDefinitionText } from '../../runtime/context/front-matter';
import { type Skill, SKILL_FILE } from '../../runtime/context/skills';
import { cutHead } from '../../runtime/text-cut';
import { ToolError } from '../errors';
import { decodeText } from '../files/text';
import { type Workspace } from '../ports';
import { defineTool, type ToolEnv } from '../tool';

const MAX_BODY_CHARS = 64_000;
const MAX_LISTED_FILES = 200;
const MAX_DEPTH = 6;

const schema = z.object({
  name: z.string().min(1).max(200).describe('The name of a skill listed in the system prompt.'),
});

function isWithin(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/** The found skill whose folder (after links) holds this real path, if any. */
export function skillFolderOf(real: string, skills: readonly Skill[]): Skill | undefined {
  return skills.find((s) => isWithin(s.realDir, real));
}

/**
 * The folder's files, relative, sorted; a link is listed only when it stays in the folder and a
 * secret not at all, so the list names only what read_file will read without asking.
 */
async function folderFiles(workspace: Workspace, skill: Skill, env: Pick<ToolEnv, 'sensitiveFile'>): Promise<{ files: string[]; more: boolean }> {
  const files: string[] = [];
  let more = false;
  const walk = async (dir: string, rel: string, depth: number): Promise<void> => {
    const entries = await workspace.readdir(dir).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (files.length >= MAX_LISTED_FILES) {
        more = true;
        return;
      }
      const childRel = rel ? `${rel}/${entry.name}` : entry.name;
      const abs = path.join(dir, entry.name);
      let type = entry.type;
      if (type === 'symlink') {
        const real = await workspace.realpath(abs).catch(() => undefined);
        if (!real || !isWithin(skill.realDir, real)) continue;
        type = (await workspace.stat(real).catch(() => undefined))?.type ?? 'other';
        // A link to a folder is not walked: it could loop.
        if (type !== 'file') continue;
      }
      if (type === 'directory' && depth < MAX_DEPTH) await walk(abs, childRel, depth + 1);
      if (type !== 'file' || (rel === '' && entry.name === SKILL_FILE)) continue;
      if (env.sensitiveFile(childRel) ?? env.sensitiveFile(entry.name)) continue;
      files.push(childRel);
    }
  };
  await walk(skill.realDir, '', 0);
  return { files, more };
}

export const skillTool = defineTool({
  name: 'skill',
  description: [
    'Loads an Agent Skill by name: returns the instructions in its SKILL.md and lists the other files of its folder.',
    'Use it when a task matches a skill listed in the system prompt, before starting the task; then follow the instructions, reading the listed files with read_file when they say to.',
  ].join('\n'),
  schema,
  readOnly: true,
  need: 'read',
  assess(input) {
    return Promise.resolve({ need: 'read', subject: input.name });
  },
  async execute(input, env) {
    const skills = env.skills?.() ?? [];
    const skill = skills.find((s) => s.name === input.name) ?? skills.find((s) => s.name.toLowerCase() === input.name.toLowerCase());
    if (!skill) {
      const known = skills.length > 0 ? `Skills available: ${skills.map((s) => s.name).join(', ')}.` : 'No skills were found for this session.';
      throw new ToolError('not_found', `There is no skill named '${input.name}'. ${known}`);
    }
    const file = path.join(skill.dir, SKILL_FILE);
    // Checked again now: the file may have been swapped for a link since it was found.
    const real = await env.workspace.realpath(file).catch(() => undefined);
    if (!real) throw new ToolError('not_found', `${skill.label}/${SKILL_FILE} is gone; the skill cannot be loaded.`);
    if (!isWithin(skill.realDir, real)) throw new ToolError('not_a_file', `${skill.label}/${SKILL_FILE} is now a link out of its folder (to ${real}); it was not read.`);
    const secret = env.sensitiveFile(real);
    if (secret) throw new ToolError('not_a_file', `${skill.label}/${SKILL_FILE} leads to a file that may hold secrets (matches ${secret}); it was not read.`);
    const parsed = parseDefinitionText(decodeText(await env.workspace.readFile(real)).text);
    let body = parsed.body.trim();
    if (body.length > MAX_BODY_CHARS) body = `${cutHead(body, MAX_BODY_CHARS)}\n[SKILL.md was cut at ${MAX_BODY_CHARS.toLocaleString('en-US')} characters.]`;
    const { files, more } = await folderFiles(env.workspace, skill, env);
    const lines = [`Skill '${skill.name}' (${skill.label}; folder ${skill.dir}).`, '', body || '(SKILL.md has no instructions after its front matter.)'];
    if (files.length > 0) {
      lines.push('', `Files of this skill (read them with read_file under ${skill.dir}):`, ...files.map((f) => `- ${f}`));
      if (more) lines.push(`(only the first ${MAX_LISTED_FILES} are listed)`);
    } else lines.push('', 'The skill has no other files.');
    return { content: lines.join('\n'), isError: false };
  },
});
