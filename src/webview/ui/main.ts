// Browser side of the chat panel. Built as an IIFE; talks to the host only
// through the validated protocol in ../protocol.ts.
import { HostToWebview, type WebviewToHost } from '../protocol';

declare function acquireVsCodeApi(): { postMessage(message: unknown): void; getState(): unknown; setState(state: unknown): void };

const vscode = acquireVsCodeApi();
const send = (message: WebviewToHost) => vscode.postMessage(message);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

const app = document.getElementById('app')!;
const transcript = el('section', { class: 'transcript', 'aria-live': 'polite', 'aria-label': 'Conversation' });
const status = el('div', { class: 'status', role: 'status' });
const form = el('form', { class: 'composer' });
const input = el('textarea', { class: 'input', rows: '3', placeholder: 'Ask Turnstone… (Enter to send, Shift+Enter for a new line)', 'aria-label': 'Message Turnstone' });
const sendButton = el('button', { type: 'submit', class: 'send', title: 'Send (Enter)', 'aria-label': 'Send' });
sendButton.append(el('span', { class: 'codicon codicon-send' }));
form.append(input, sendButton);
app.append(transcript, status, form);

function submit() {
  const text = input.value.trim();
  if (!text) return;
  send({ type: 'send', text });
  const bubble = el('div', { class: 'message user' }, text);
  transcript.append(bubble);
  input.value = '';
}

form.addEventListener('submit', (e) => {
  e.preventDefault();
  submit();
});
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
  }
});

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = HostToWebview.safeParse(event.data);
  if (!parsed.success) {
    console.warn('[turnstone] dropped malformed host message', parsed.error.message);
    return;
  }
  const message = parsed.data;
  switch (message.type) {
    case 'status':
      status.textContent = message.text;
      break;
  }
});

send({ type: 'ready' });
input.focus();
