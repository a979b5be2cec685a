// The models the picker offers. VS Code's quick pick re-sorts what matches the
// typed text (prefix matches first, then by name, numbers compared as numbers),
// and an extension cannot turn that off in VS Code 1.100: typed "opus", it put
// claude-opus-4-8 before claude-opus-5-5, so Enter picked an older Opus. Each
// family therefore also has an entry named `claude-<family>` for its newest
// model: being the shortest name that contains the family (and a prefix of the
// others), it sorts first whether the user types "opus" or "claude-opus".

/** Current, non-deprecated ids of SDK 1.14, newest first per family; any other id can be typed. */
export const MODEL_CHOICES = ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5', 'claude-sonnet-5', 'claude-opus-5', 'claude-opus-4-8', 'claude-sonnet-4-6'];

const FAMILIES = ['opus', 'sonnet', 'haiku'] as const;

export interface ModelPick {
  /** What the picker shows and filters on. */
  label: string;
  /** The model id picking it sets. */
  model: string;
  current: boolean;
  /** A family entry (`claude-opus`): the newest model of that family. */
  family?: (typeof FAMILIES)[number];
}

/** The newest model of a family, by the list's order ("opus" → claude-opus-5-5). */
export function newestOf(family: string, choices: readonly string[] = MODEL_CHOICES): string | undefined {
  return choices.find((id) => id.startsWith(`claude-${family}-`));
}

/** The ids (the current one first when the list lacks it), then one entry per family for its newest model. */
export function modelPicks(current: string, choices: readonly string[] = MODEL_CHOICES): ModelPick[] {
  const ids = choices.includes(current) ? choices : [current, ...choices];
  const picks: ModelPick[] = ids.map((id) => ({ label: id, model: id, current: id === current }));
  for (const family of FAMILIES) {
    const model = newestOf(family, choices);
    if (model) picks.push({ label: `claude-${family}`, model, current: false, family });
  }
  return picks;
}
