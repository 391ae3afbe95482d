/**
 * Entity names as keys: the same person mentioned as "Emma", "emma" or " Emma " in two chats must land
 * on one entity (entity linking). Keys fold Unicode compatibility forms (full-width letters),
 * case, whitespace, quotes and surrounding punctuation, and an English leading "the". Aliases the LLM
 * reports ("Em", "my sister") become further keys of the same entity.
 */
export function entityKey(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u201C\u201D"`«»「」『』]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$/gu, '')
    .replace(/^the\s+/, '');
}

/** Predicates are machine labels: UPPER_SNAKE_CASE, letters of any script kept. */
export function predicateKey(predicate: string): string {
  return predicate
    .normalize('NFKC')
    .trim()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase()
    .slice(0, 80);
}
