// The skills the last look found, for the turn's tools (the skill tool and
// read_file's reach into a skill's folder). Apart from skills.ts, which
// loads the core to look: the tools are part of the core.
import { type Skill } from '../../runtime/context/skills';

let found: readonly Skill[] = [];

export function setHostSkills(skills: readonly Skill[]): void {
  found = skills;
}

/** The skills found by the last look. */
export function currentHostSkills(): readonly Skill[] {
  return found;
}
