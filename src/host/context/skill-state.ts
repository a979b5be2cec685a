// The skills the last look found, for the turn's tools (the skill tool and
// read_file's reach into a skill's folder). It lives in the core bundle with
// the tools; skills.ts (activation's side) sets it through loadCore(), or it
// would write a second copy of this module that the tools never read.
import { type Skill } from '../../runtime/context/skills';

let found: readonly Skill[] = [];

export function setHostSkills(skills: readonly Skill[]): void {
  found = skills;
}

/** The skills found by the last look. */
export function currentHostSkills(): readonly Skill[] {
  return found;
}
