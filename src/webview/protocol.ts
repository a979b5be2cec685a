// The one message protocol between the extension host and the chat webview.
// Declared once as zod schemas; both sides validate what they receive and drop
// (and log) anything malformed, since the webview renders hostile model output.
import { z } from 'zod';

export const WebviewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('send'), text: z.string().min(1).max(1_000_000) }),
  z.object({ type: z.literal('stop') }),
]);
export type WebviewToHost = z.infer<typeof WebviewToHost>;

export const HostToWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('status'), text: z.string() }),
]);
export type HostToWebview = z.infer<typeof HostToWebview>;
