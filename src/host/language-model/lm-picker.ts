// The model picker's part for provider `vscode-lm`: the editor's own models,
// asked of `vscode.lm` only when the picker opens (never at activation).
import * as vscode from 'vscode';
import { lmModelId } from './lm-ids';

type Item = vscode.QuickPickItem & { model?: string };

/** The items for the editor's models; one explaining item when the editor has none. */
export async function languageModelItems(current: string): Promise<Item[]> {
  const models = vscode.lm ? await vscode.lm.selectChatModels() : [];
  if (models.length === 0) {
    return [
      {
        label: vscode.l10n.t('No language models in this editor'),
        detail: vscode.l10n.t('Install and sign in to an extension that provides them (such as GitHub Copilot Chat), or set turnstone.provider to anthropic or openai-compatible.'),
      },
    ];
  }
  return models.map((m) => {
    const id = lmModelId(m);
    return {
      label: m.name || id,
      model: id,
      description: id === current ? vscode.l10n.t('current · {0}', id) : id,
      detail: vscode.l10n.t('{0} · {1} tokens in · included in your subscription', m.vendor, m.maxInputTokens.toLocaleString()),
    };
  });
}

/** Shows the editor's models; the `vendor/id` picked, or undefined when none was. */
export async function pickLanguageModel(current: string): Promise<string | undefined> {
  const pick = await vscode.window.showQuickPick(languageModelItems(current), { title: vscode.l10n.t("Turnstone model (VS Code's language models)"), placeHolder: current });
  return pick?.model;
}
