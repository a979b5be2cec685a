// Lines added and removed by a file change, counted one way for every place that shows them: the panel's
// edit cards (webview/tool-view.ts diffStats) and the CLI's json `changes` (cli/changes.ts): the `+` and `-`
// lines of a unified diff's hunks. It imports nothing of Turnstone, so the panel's host side may take it
// (a named leaf in test/unit/architecture.test.ts).
import { structuredPatch, type StructuredPatch } from 'diff';

export interface LineCounts {
  added: number;
  removed: number;
}

/** The lines a patch's hunks add and remove (its headers and "\ No newline" markers are not lines of the file). */
export function countHunkLines(patch: Pick<StructuredPatch, 'hunks'>): LineCounts {
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

/** Lines added and removed between two contents (null: the file did not exist). */
export function lineCounts(before: string | null, after: string | null): LineCounts {
  return countHunkLines(structuredPatch('a', 'b', before ?? '', after ?? '', undefined, undefined, { context: 0 }));
}
