import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Prompts are Markdown files in `core/llm/prompts/` with `{{placeholders}}`, read at run time relative
 * to this module (like the SQL migrations), so they can be read, reviewed and tuned without touching
 * code. A bundler must copy the folder next to the bundle (electron-vite: see README, "Using an LLM").
 */
export const defaultPromptsDir = fileURLToPath(new URL('./prompts/', import.meta.url));

export type PromptName =
  'episode-boundaries' | 'episode-narrative' | 'semantic-reconstruct' | 'semantic-gaps' | 'repair' | 'connection-test';

const cache = new Map<string, string>();

export function loadPrompt(name: PromptName, dir = defaultPromptsDir): string {
  const file = path.join(dir, `${name}.md`);
  let text = cache.get(file);
  if (text === undefined) {
    text = fs.readFileSync(file, 'utf8');
    cache.set(file, text);
  }
  return text;
}

/** The placeholders a prompt file expects, in order of first appearance. */
export function placeholders(template: string): string[] {
  return [...new Set([...template.matchAll(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g)].map((m) => m[1]!))];
}

/**
 * Fills every `{{name}}`. A missing value or an unused one is a programming error (the prompt and the
 * code drifted apart), so it throws instead of sending a half-filled prompt to the model.
 */
export function renderPrompt(name: PromptName, values: Record<string, string | number>, dir = defaultPromptsDir): string {
  const template = loadPrompt(name, dir);
  const wanted = placeholders(template);
  const missing = wanted.filter((k) => !(k in values));
  const unused = Object.keys(values).filter((k) => !wanted.includes(k));
  if (missing.length || unused.length) {
    throw new Error(
      `prompt ${name}.md: ${missing.length ? `missing ${missing.join(', ')}` : ''}${missing.length && unused.length ? '; ' : ''}${unused.length ? `unused ${unused.join(', ')}` : ''}`,
    );
  }
  // One pass over the template: a value containing "{{x}}" (a message quoting braces) is never expanded.
  return template.replace(/\{\{\s*([a-zA-Z0-9_]+)\s*\}\}/g, (_, k: string) => String(values[k]));
}
