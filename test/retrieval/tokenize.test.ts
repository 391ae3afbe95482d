import { describe, expect, it } from 'vitest';
import { MAX_TOKEN_LENGTH, tokenize, uniqueTerms } from '../../core/text/tokenize.js';

/** Every term of the query occurs among the document's terms: BM25 can match the whole query. */
function expectQueryCovered(query: string, doc: string): void {
  const docTerms = new Set(tokenize(doc));
  const q = tokenize(query);
  expect(q.length).toBeGreaterThan(0);
  expect(
    q.filter((t) => !docTerms.has(t)),
    `${query} ⊄ ${doc}: doc terms ${[...docTerms].join(' ')}`,
  ).toEqual([]);
}

describe('tokenize: English', () => {
  it('stems words and drops stopwords', () => {
    const terms = tokenize('I went hiking yesterday and I am running again with the kids');
    expect(terms).toContain('hike');
    expect(terms).toContain('run');
    expect(terms).toContain('kid');
    for (const stop of ['i', 'and', 'am', 'with', 'the', 'again']) expect(terms).not.toContain(stop);
  });

  it('matches inflected forms of the same word', () => {
    expectQueryCovered('hikes', 'We went hiking in the mountains');
    expectQueryCovered('paintings', 'Melanie painted a sunset');
    expectQueryCovered('When did Caroline start camping?', 'Caroline started camping by the lake with her family');
  });

  it('keeps term frequency (duplicates are not removed)', () => {
    expect(tokenize('run running runs')).toEqual(['run', 'run', 'run']);
  });

  it("strips possessives and treats ’ like '", () => {
    expect(tokenize("my mother's garden")).toEqual(['mother', 'garden']);
    expect(tokenize('my mother’s garden')).toEqual(['mother', 'garden']);
    expectQueryCovered('Caroline', "Caroline's new job");
  });

  it('drops contractions of function words and joins other apostrophes', () => {
    expect(tokenize("don't can't it's I'm we've they'll")).toEqual([]);
    expect(tokenize("O'Brien")).toEqual(['obrien']);
    // typed without the apostrophe, as chats often are; "ill" and "well" are words of their own
    expect(tokenize('didnt dont im thats youre')).toEqual([]);
    expect(tokenize('ill well')).toEqual(['ill', 'well']);
  });

  it('keeps numbers, times and versions', () => {
    const terms = tokenize('In 2023 at 3pm it cost 1,000 dollars; pi is 3.14 and v2.0 shipped');
    for (const t of ['2023', '3pm', '1000', '3.14', 'v2.0']) expect(terms).toContain(t);
  });

  it('indexes hyphenated words as parts and as the joined word', () => {
    expect(tokenize('e-mail')).toEqual(['e', 'mail', 'email']);
    expectQueryCovered('email', 'I sent her an e-mail');
    expectQueryCovered('covid', 'after covid-19');
    expect(tokenize('2023-05-08')).toEqual(['2023', '05', '08']); // dates are not glued into 20230508
  });

  it('folds full-width letters, dotted abbreviations and Latin diacritics', () => {
    expect(tokenize('Ｐｙｔｈｏｎ')).toEqual(['python']);
    expect(tokenize('the U.S.A. trip')).toEqual(['usa', 'trip']);
    expectQueryCovered('cafe', 'We met at the café');
  });
});

describe('tokenize: Chinese', () => {
  it.each([
    ['机器学习', '我最近在学机器学习项目'],
    ['上海', '我下周去上海出差'],
    ['北京大学', '我考上了北京大学'],
    ['北京大学', '我去年在北京大学读研究生'],
    ['周末爬山', '上周末爬山的时候摔了一跤'],
    ['爬山', '我们周末去爬山吧'],
    ['生命', '他在研究生命起源'],
  ])('query %s is covered by document %s', (query, doc) => {
    expectQueryCovered(query, doc);
  });

  it('finds the words of a query even when they are not adjacent in the document', () => {
    const doc = new Set(tokenize('我们周末去爬山吧'));
    expect(doc.has('周末')).toBe(true);
    expect(doc.has('爬山')).toBe(true);
  });

  it('emits words and bigrams, not single characters of multi-character words', () => {
    const terms = tokenize('机器学习');
    expect(terms).toEqual(['机器', '器学', '学习']);
    expect(terms).not.toContain('机');
  });

  it('drops function words and does not bridge bigrams across them', () => {
    const terms = tokenize('我的猫');
    expect(terms).toEqual(['猫']);
  });

  it('keeps single-character content words searchable', () => {
    expectQueryCovered('猫', '我的猫很可爱');
  });
});

describe('tokenize: other scripts, mixed text, junk', () => {
  it('handles mixed Chinese and English', () => {
    const terms = tokenize('我喜欢用 Python 写脚本');
    expect(terms).toContain('python');
    expect(terms).toContain('脚本');
    expect(terms).toContain('喜欢');
    expectQueryCovered('python 脚本', '我喜欢用 Python 写脚本');
  });

  it('produces usable Japanese and Korean terms', () => {
    expectQueryCovered('東京', '東京に行きました');
    expectQueryCovered('학생', '저는 학생입니다');
  });

  it('drops emoji and punctuation', () => {
    expect(tokenize('😀🎉 !!! ... —— ？！')).toEqual([]);
    expect(tokenize('great 👍 trip!')).toEqual(['great', 'trip']);
  });

  it('drops very long tokens such as base64 blobs', () => {
    const blob = 'aGVsbG8gd29ybGQgdGhpcyBpcyBhIHZlcnkgbG9uZyBiYXNlNjQgYmxvYg';
    expect(blob.length).toBeGreaterThan(MAX_TOKEN_LENGTH);
    expect(tokenize(`photo ${blob} attached`)).toEqual(['photo', 'attach']);
  });

  it('returns nothing for empty or stopword-only text', () => {
    expect(tokenize('')).toEqual([]);
    expect(tokenize('   \n\t')).toEqual([]);
    expect(tokenize('the and of it')).toEqual([]);
  });
});

describe('uniqueTerms', () => {
  it('removes duplicates, keeping first-occurrence order', () => {
    expect(uniqueTerms('running hiking runs 上海 上海')).toEqual(['run', 'hike', '上海']);
  });
});

describe('tokenize: texts of many lines', () => {
  const lines = [
    'Ann: We went hiking near Lake Tahoe — e-mail me the 1,000 photos!',
    'Bob: 我们明天去北京大学看展览: 好不好',
    "Ann: It's the U.S.A. trip, v2.0: café at 3pm",
  ];

  it('has the terms of its lines, and a line those of its parts around ": "', () => {
    const parts = lines.flatMap((l) => l.split(': '));
    expect(tokenize(lines.join('\n'))).toEqual(parts.flatMap((p) => tokenize(p)));
  });

  it("indexes a long episode's messages with the very terms each message has alone", () => {
    // The content's character 996 is the "." of 3.1415926535: the content read whole, in pieces of
    // 1,000 characters, would be cut there, after the last separator, and index "3" and "1415926535".
    const said = `${'word '.repeat(192)}3.1415926535 and onwards`;
    const content = `Ann and Bob talked on Monday.\nAnn: ${said}`;
    expect(tokenize(content)).toContain('3.1415926535');
    expect(tokenize(content)).toEqual([...tokenize('Ann and Bob talked on Monday.'), ...tokenize('Ann'), ...tokenize(said)]);
  });

  it('gives a text the same terms however many texts were read since, and with spaces around it', () => {
    const texts = ['Ann: We went hiking near Lake Tahoe', 'Bob: 我们明天去北京大学看展览', 'e-mail 北京 大学'];
    const first = texts.map((t) => tokenize(t));
    // More distinct texts than the remembered terms of recent texts hold, twice over.
    for (let i = 0; i < 50_000; i++) tokenize(`filler ${i} 第${i}`);
    expect(texts.map((t) => tokenize(t))).toEqual(first);
    expect(tokenize(' beach \n 北京 \n  Lake Tahoe  ')).toEqual([...tokenize('beach'), ...tokenize('北京'), ...tokenize('Lake Tahoe')]);
    expect(tokenize(' 北京')).toEqual(tokenize('北京'));
  });
});
