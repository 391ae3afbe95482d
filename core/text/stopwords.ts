/**
 * Stopword sets for the BM25 tokeniser.
 *
 * Kept deliberately small: BM25's IDF already discounts frequent words, so the list only removes
 * words that carry no retrievable meaning in a personal-memory question ("when did …", "what is …").
 * Content-bearing words that common lists sometimes include (first, last, new, year, home, like, get)
 * are NOT here. Entries are surface forms (lower case, before stemming); contractions are handled by
 * the tokeniser (every "n't" form is dropped, "'s/'m/'re/'ve/'ll/'d" are stripped before this lookup).
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  // articles, determiners, quantifier-like function words
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'any', 'each', 'every', 'either', 'neither',
  'such', 'own', 'same', 'other', 'another', 'both', 'all', 'few', 'more', 'most', 'much', 'many',
  // pronouns
  'i', 'me', 'my', 'mine', 'myself', 'we', 'us', 'our', 'ours', 'ourselves', 'you', 'your', 'yours',
  'yourself', 'yourselves', 'he', 'him', 'his', 'himself', 'she', 'her', 'hers', 'herself', 'it', 'its',
  'itself', 'they', 'them', 'their', 'theirs', 'themselves',
  // question words and relatives
  'what', 'which', 'who', 'whom', 'whose', 'when', 'where', 'why', 'how', 'whether',
  // auxiliaries and modals ('may' is absent on purpose: it is also the month)
  'am', 'is', 'are', 'was', 'were', 'be', 'been', 'being', 'have', 'has', 'had', 'having', 'do', 'does',
  'did', 'doing', 'done', 'can', 'could', 'will', 'would', 'shall', 'should', 'might', 'must',
  // prepositions and conjunctions
  'of', 'at', 'by', 'for', 'with', 'about', 'against', 'between', 'into', 'through', 'during', 'before',
  'after', 'above', 'below', 'to', 'from', 'up', 'down', 'in', 'out', 'on', 'off', 'over', 'under',
  'onto', 'upon', 'within', 'without', 'toward', 'towards', 'via', 'per', 'than', 'as', 'and', 'but',
  'or', 'nor', 'if', 'because', 'while', 'until', 'so', 'then', 'though', 'although', 'unless',
  // adverbs / fillers with no topical content
  'again', 'further', 'once', 'here', 'there', 'very', 'too', 'just', 'also', 'only', 'not', 'no',
  'yes', 'now', 'ever', 'even', 'still', 'yet', 'really', 'quite', 'oh', 'ok', 'okay', 'um', 'uh',
  'hey', 'hi', 'yeah', 'lol',
  // residues of contractions that the segmenter may leave standing alone
  's', 't', 'd', 'll', 'm', 're', 've', 'don', 'didn', 'doesn', 'isn', 'wasn', 'aren', 'weren', 'won',
  'wouldn', 'couldn', 'shouldn', 'hasn', 'haven', 'hadn', 'let',
]);

/**
 * CJK *segments* (whole Intl.Segmenter words) that are dropped: Chinese function words and
 * pronouns, Japanese particles. Matched against a whole segment only, never against a character
 * inside a longer word (so 的 is dropped, 目的 is kept). Bigrams that would straddle a dropped
 * segment are not emitted either (我最 / 的猫 are noise, not phrases).
 */
export const CJK_STOPWORDS: ReadonlySet<string> = new Set([
  // Chinese single-character function words
  '的', '地', '得', '了', '着', '过', '是', '在', '有', '和', '与', '及', '或', '也', '就', '都', '而', '又',
  '还', '很', '太', '把', '被', '给', '让', '对', '从', '向', '于', '以', '之', '其', '这', '那', '哪',
  '个', '些', '吗', '呢', '吧', '啊', '呀', '嘛', '哦', '噢', '嗯', '哈', '啦', '呗', '么',
  '我', '你', '您', '他', '她', '它', '咱',
  // pronoun + 的, which ICU's dictionary segments as one word
  '我的', '你的', '您的', '他的', '她的', '它的', '我们的', '你们的', '他们的', '她们的', '自己的',
  // Chinese multi-character function words and pronouns
  '我们', '你们', '他们', '她们', '它们', '咱们', '自己', '什么', '怎么', '怎样', '为什么', '这个', '那个',
  '这些', '那些', '这样', '那样', '这里', '那里', '因为', '所以', '但是', '可是', '然后', '而且', '或者',
  '就是', '还是', '如果', '虽然', '已经', '一个', '一些', '没有', '不是', '可以', '哪里', '哪个', '关于', '对于',
  '一下', '这么', '那么', '的话', '时候', // 时候 as in 什么时候 = "when"
  // Japanese particles and copula fragments
  'の', 'に', 'は', 'を', 'が', 'で', 'と', 'も', 'へ', 'や', 'か', 'な', 'ね', 'よ', 'た', 'て', 'だ',
  'です', 'ます', 'でした', 'ました',
]);
