// How `turnstone.model` names one of the editor's models. Types only from
// `vscode`: the picker (in the activation bundle) and the client share it.
import type * as vscode from 'vscode';

/** What `turnstone.model` holds for a model: `vendor/id`, stable across sessions (the id alone is vendor-defined). */
export const lmModelId = (m: { vendor: string; id: string }) => `${m.vendor}/${m.id}`;

/**
 * The selectors that find the model a setting names, in order: `vendor/id`,
 * then `vendor/family` (so `copilot/gpt-4o` works whichever the vendor means),
 * then a bare id or family.
 */
export function selectorsFor(model: string): vscode.LanguageModelChatSelector[] {
  const slash = model.indexOf('/');
  if (slash > 0) {
    const vendor = model.slice(0, slash);
    const rest = model.slice(slash + 1);
    return [{ vendor, id: rest }, { vendor, family: rest }];
  }
  return [{ id: model }, { family: model }];
}
