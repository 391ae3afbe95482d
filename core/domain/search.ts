import { z } from 'zod';

/** How a query is matched: by words (BM25), by meaning (vectors), or both fused. */
export const SearchMode = z.enum(['hybrid', 'bm25', 'vector']);
export type SearchMode = z.infer<typeof SearchMode>;
