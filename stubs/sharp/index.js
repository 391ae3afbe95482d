// transformers.js imports sharp when it loads, for image inputs, and refuses to load without it. Nemori
// embeds text only, so this takes its place (package.json "overrides"): the native image library is
// neither installed (~20 MB) nor loaded into the model's process (~20 MB of memory while searching).
export default function sharp() {
  throw new Error('Nemori embeds text only: image processing (sharp) is not installed');
}
