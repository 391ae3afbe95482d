import { boundedMemo } from './bounded-memo.js';
import { CJK_STOPWORDS, DETERMINERS, ENGLISH_STOPWORDS } from './stopwords.js';
import { abbreviationAt, isAbbreviation } from './sentences.js';
import { tokenize } from './tokenize.js';
import { wordSegments } from './word-segments.js';

/** Interjections, laughter, greetings, thanks and fillers: what keeps a chat going without saying anything. */
const PHATIC_EN = [
  'ah',
  'aha',
  'ahh',
  'aw',
  'aww',
  'awww',
  'bye',
  'cheers',
  'eh',
  'er',
  'erm',
  'gah',
  'geez',
  'gosh',
  'ha',
  'haha',
  'hahaha',
  'hah',
  'heh',
  'hehe',
  'hello',
  'hey',
  'hi',
  'hm',
  'hmm',
  'hmmm',
  'huh',
  'lmao',
  'lol',
  'meh',
  'mhm',
  'nah',
  'nope',
  'oh',
  'ohh',
  'ok',
  'okay',
  'omg',
  'ooh',
  'oops',
  'ouch',
  'phew',
  'pls',
  'please',
  'rofl',
  'sure',
  'thanks',
  'thank',
  'thx',
  'ty',
  'ugh',
  'uh',
  'um',
  'umm',
  'wow',
  'woah',
  'whoa',
  'woohoo',
  'yay',
  'yeah',
  'yep',
  'yes',
  'yup',
  'yo',
  'xd',
  'btw',
  'imo',
  'tbh',
  'idk',
  'brb',
  'gonna',
  'wanna',
  'gotta',
  'kinda',
  'sorta',
  'lets',
  'let',
  'dunno',
  'ya',
  'yea',
  'cool',
  'nice',
  'great',
  'awesome',
  'amazing',
  'wonderful',
  'fantastic',
  'congrats',
  'congratulations',
  'sorry',
  'glad',
  'welcome',
  'morning',
  'night',
  'goodnight',
  'cute',
  'lovely',
  'super',
  'totally',
  'evening',
  'afternoon',
  'going',
  'doing',
  'good',
  'new',
  'today',
  'tonight',
];

/** Greetings and thanks of the other languages chats are often mixed with. */
const PHATIC_OTHER = [
  ...['hallo', 'danke', 'bitte', 'tschüss', 'hola', 'gracias', 'adiós', 'adios', 'merci', 'bonjour', 'salut', 'ciao'],
  ...['grazie', 'obrigado', 'obrigada', 'olá'],
];

/** Numbers in words, alone or joined ("twenty-five"). */
const NUMBER_WORDS: ReadonlySet<string> = new Set(
  'two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand'.split(
    ' ',
  ),
);

/**
 * Words that are never a topic however rare they are in someone's memory: the phatic words above, and
 * the general verbs, adjectives and adverbs every conversation is made of. Surface forms, lower case.
 */
const NOT_TOPICS_EN = new Set([
  ...PHATIC_EN,
  ...PHATIC_OTHER,
  // chat spellings of when, how long and how sure ("jump tmrw", "ya prob", "6 yrs old", "4ever")
  ...'tmrw tmr tmrrw tmw 2moro 2morrow 2day 2nite tonite b4 rn asap thurs thur tues weds fri sat yr yrs hr hrs mins secs 4ever'.split(' '),
  ...'prob probs prolly def defo obvs srsly tho thru bc cuz coz abt ngl tbf lmk omw ikr smh fyi wyd hbu jk ily ur'.split(' '),
  // prepositions the stop words leave out ("the bakery near the station" is about the bakery)
  'across',
  'along',
  'amid',
  'among',
  'behind',
  'beneath',
  'beside',
  'besides',
  'beyond',
  'despite',
  'inside',
  'near',
  'nearby',
  'onto',
  'outside',
  'past',
  'throughout',
  'till',
  'toward',
  'towards',
  'underneath',
  'unlike',
  'until',
  'upon',
  'via',
  'within',
  'without',
  // numbers in words: what was counted is the topic ("thirty minutes", "fifteen a day")
  ...NUMBER_WORDS,
  // general verbs
  'am',
  'ask',
  'asked',
  'be',
  'become',
  'began',
  'begin',
  'believe',
  'bring',
  'bringing',
  'brought',
  'call',
  'called',
  'came',
  'can',
  'check',
  'come',
  'comes',
  'coming',
  'did',
  'do',
  'does',
  'doing',
  'done',
  'feel',
  'feeling',
  'feels',
  'felt',
  'find',
  'found',
  'get',
  'gets',
  'getting',
  'give',
  'given',
  'gives',
  'go',
  'goes',
  'going',
  'gone',
  'got',
  'gotten',
  'guess',
  'had',
  'happen',
  'happened',
  'has',
  'have',
  'hear',
  'heard',
  'help',
  'hope',
  'hoping',
  'keep',
  'kept',
  'know',
  'knew',
  'known',
  'knows',
  'leave',
  'left',
  'like',
  'liked',
  'likes',
  'look',
  'looked',
  'looking',
  'looks',
  'love',
  'loved',
  'loves',
  'made',
  'make',
  'makes',
  'making',
  'mean',
  'means',
  'meant',
  'need',
  'needed',
  'needs',
  'put',
  'said',
  'saw',
  'say',
  'saying',
  'says',
  'see',
  'seeing',
  'seem',
  'seems',
  'seen',
  'sent',
  'send',
  'share',
  'shared',
  'show',
  'showed',
  'sound',
  'sounds',
  'start',
  'started',
  'stay',
  'take',
  'taken',
  'takes',
  'taking',
  'talk',
  'talked',
  'talking',
  'tell',
  'telling',
  'think',
  'thinking',
  'thought',
  'told',
  'took',
  'tried',
  'try',
  'trying',
  'use',
  'using',
  'used',
  'want',
  'wanted',
  'wants',
  'was',
  'went',
  'were',
  'wish',
  'wonder',
  'work',
  'worked',
  'working',
  'would',
  'write',
  'wrote',
  'remember',
  'forget',
  'forgot',
  'miss',
  'missed',
  'enjoy',
  'enjoyed',
  'appreciate',
  'agree',
  'mind',
  'care',
  'wait',
  'waiting',
  'meet',
  'met',
  'stop',
  'stopped',
  // general adjectives, adverbs and nouns of chat
  'actually',
  'again',
  'almost',
  'already',
  'always',
  'anyway',
  'around',
  'away',
  'bad',
  'best',
  'better',
  'big',
  'bit',
  'definitely',
  'different',
  'easy',
  'else',
  'enough',
  'especially',
  'everything',
  'exactly',
  'fine',
  'finally',
  'fun',
  'hard',
  'happy',
  'honestly',
  'important',
  'interesting',
  'just',
  'kind',
  'last',
  'later',
  'earlier',
  'late',
  'back',
  'least',
  'less',
  'little',
  'long',
  'lot',
  'lots',
  'maybe',
  'much',
  'never',
  'next',
  'nothing',
  'often',
  'old',
  'one',
  'ones',
  'pretty',
  'probably',
  'quite',
  'real',
  'really',
  'right',
  'something',
  'sometimes',
  'someone',
  'somebody',
  'soon',
  'special',
  'stuff',
  'thing',
  'things',
  'time',
  'times',
  'tomorrow',
  'true',
  'way',
  'well',
  'whole',
  'wrong',
  'yesterday',
  'week',
  'weekend',
  'day',
  'days',
  'year',
  'years',
  'moment',
  'everyone',
  'anything',
  'everybody',
  'people',
  'guy',
  'guys',
  'man',
  'dude',
  'friend',
  'friends',
  'idea',
  'part',
  'place',
  'life',
  'world',
  'far',
  'sure',
  'hopefully',
  'together',
  'totally',
  'truly',
  'super',
  'incredible',
  'inspiring',
  'excited',
  'exciting',
  'proud',
  'tough',
  'absolutely',
  'completely',
  'seriously',
  'literally',
  'basically',
  'anymore',
  'ever',
  'lately',
  'recently',
  'soon',
  'yet',
  'perfect',
  'others',
  'other',
  'first',
  'second',
  'plus',
  'may',
  'might',
  'fave',
  'fav',
  'loads',
  'since',
  'else',
  'stands',
  'continue',
  'chance',
  'worth',
  'mix',
  'ones',
  'change',
  'difference',
  'self',
  'alive',
  'ate',
  'hang',
  'natural',
  // anyone, anywhere: no one and nowhere in particular
  'anyone',
  'anybody',
  'nobody',
  'noone',
  'somewhere',
  'anywhere',
  'everywhere',
  'nowhere',
  'whatever',
  'whenever',
  'wherever',
  'unknown',
  // the past of irregular verbs: what happened, not what it happened to ("Mango threw up")
  'threw',
  'thrown',
  'broke',
  'broken',
  'drank',
  'drove',
  'driven',
  'fell',
  'fallen',
  'flew',
  'flown',
  'froze',
  'gave',
  'grew',
  'hid',
  'hidden',
  'hung',
  'lost',
  'ran',
  'rode',
  'ridden',
  'rang',
  'sang',
  'sank',
  'shook',
  'shaken',
  'slept',
  'spent',
  'spoke',
  'spoken',
  'stole',
  'stolen',
  'stood',
  'stuck',
  'swam',
  'taught',
  'tore',
  'torn',
  'woke',
  'woken',
  'wore',
  'worn',
  'bought',
  'caught',
  'fought',
  'built',
  'sold',
  'fed',
  'held',
  'paid',
  'chose',
  'chosen',
  'dug',
  'quit',
  'shut',
  'hurt',
  'understood',
  'begun',
  'became',
  'forgave',
  'sought',
  'struck',
  'swore',
  'sworn',
  'swept',
  'eaten',
  'written',
  'bitten',
  'beaten',
  'blew',
  'blown',
  'crept',
  'dealt',
  'dreamt',
  'fled',
  'flung',
  'knelt',
  'leapt',
  'overslept',
  'slid',
  'snuck',
  'sped',
  'stank',
  'stung',
  'wept',
  'withdrew',
  // how often
  'twice',
  'thrice',
  // times are when, not what
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
  'january',
  'february',
  'march',
  'april',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'mon',
  'tue',
  'tues',
  'thu',
  'thur',
  'thurs',
  'fri',
  'month',
  'months',
  'hour',
  'hours',
  'minute',
  'minutes',
  'ago',
  // the parts of a web address that say nothing of what it is
  'http',
  'https',
  'www',
]);

/** The same in Chinese: interjections, greetings, thanks and chat words. */
const PHATIC_ZH = [
  '哈哈',
  '哈哈哈',
  '呵呵',
  '嘿嘿',
  '嘻嘻',
  '嗯嗯',
  '哎呀',
  '哎哟',
  '天哪',
  '好的',
  '好吧',
  '谢谢',
  '恭喜',
  '祝贺',
  '没事',
  '不错',
  '厉害',
  '加油',
  '晚安',
  '早安',
  '拜拜',
  '再见',
  '你好',
  '您好',
  '嗨',
  '嘿',
  '喽',
  '好',
  '好呀',
  '好久',
  '不见',
  '早上',
  '中午',
  '下午',
  '晚上',
  '最近',
  '样',
  '怎么样',
  '太好了',
  '辛苦',
  '知道了',
  '收到',
  '明白',
];

/** How things were and what was thought or told of them (弹完整, 要放松), not what they were about. */
const ZH_DESCRIBING =
  '完整 放松 简单 重要 方便 清楚 认真 努力 舒服 开心 高兴 难过 顺利 麻烦 一样 容易 困难 正常 奇怪 有趣 无聊 漂亮 可爱 干净 希望 打算 决定 发现 告诉 帮忙 注意 记住 担心 放心 了解 理解 完成 结束 ' +
  '小心 差点 好险 比较 怎样 因为 作为 认为 成为 自己 人们 正好 平时 按时 严重 关键 部分 要不 带点 少吃 多吃 ' +
  '地方 特地 一向 相对 绝对 面对 对方 温和 暖和 柔和 平和 整个 个别 全都 对付 应对 对应 反对 面向 走向 指向 通向 向往 过问 附近 心疼 多说 多听 ' +
  '当场 当时 马上 立刻 终于 居然 竟然 果然 突然 其实 另外 享受 安排 休息 推荐';

/** Function characters that also make nouns with others: 地铁, 成都, 太空, 酒吧, 哈佛, 过敏, 和平, 对象, 方向, 个人. */
const ZH_COMPOUNDING_FUNCTION_CHARACTERS: ReadonlySet<string> = new Set('地都太吧哈过和对向个');

/** Chinese words that name a topic though the rules below would take them for function words or adverb-led (有 of 没有, 太 of 太好). */
const ZH_TOPICS_OF_FUNCTION_CHARACTERS: ReadonlySet<string> = new Set(
  '吉他 就业 成就 着凉 还款 得分 把手 被子 被单 被告 有机 的士 吗啡 土耳其 以色列 也门 太太 太阳 太空 太极 太平洋 都市 都城'.split(' '),
);

/** And for Chinese: the phatic words, general verbs, time words. */
const NOT_TOPICS_ZH = new Set([
  ...PHATIC_ZH,
  ...ZH_DESCRIBING.split(' '),
  // 松了一口气 ("relieved") segments as 了一 | 口气
  '口气',
  // units said without their number ("五公里" segments as 五 | 公里)
  '公里',
  '千米',
  '厘米',
  '毫米',
  '公斤',
  '千克',
  '分钟',
  '小时',
  '块钱',
  '别人',
  '真的',
  '非常',
  '特别',
  '有点',
  '感觉',
  '觉得',
  '知道',
  '喜欢',
  '想要',
  '准备',
  '开始',
  '可能',
  '应该',
  '需要',
  '时间',
  '今天',
  '明天',
  '昨天',
  '现在',
  '一起',
  '东西',
  '事情',
  '问题',
  '这次',
  '上次',
  '下次',
  '刚才',
  '后来',
  '以后',
  '以前',
  '一直',
  '一定',
  '当然',
  '其实',
  '好像',
  '真是',
  '还有',
  '不过',
  '看看',
  '看到',
  '听说',
  '出来',
  '起来',
  '过去',
  '回来',
  '不用',
  '记得',
  '一下子',
  '时候',
  '大家',
  '朋友',
  '真好',
  '一起去',
  '一起来',
  '顺便',
  '马上',
  '已经',
  '刚刚',
  '还是',
  '同意',
  '欢迎',
  '快乐',
  '今年',
  '月份',
  '明年',
  '去年',
  '前年',
  '后年',
  '只能',
  '只好',
  '只要',
  '必须',
  '能够',
  '早点',
]);

/**
 * Chinese verbs with a result or direction (改到, 回去, 吃过, 到家, 来个), too much of something (过多, 过早),
 * which way (向上), adverb-led words (真好, 太累, 不要, 最好), times (周三, 下个月, 五号, 每天).
 */
const ZH_NOT_TOPIC =
  /^(?:.+[到去来了过着完个一]|过[多分远短早晚亮凉度量于后头足气]|向[上下前后左右]|[真太很挺超好就都也还再又不没最到].+|(?:上|下|这|本|每)?(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]?|(?:上|下|这|本)个?月|[一二三四五六七八九十两几半\d]+个?(?:[月号日点天年周]|星期|礼拜|小时|钟头|分钟)|每个?[天日年月周次晚早]|早上|上午|中午|下午|晚上|今晚|明早|明晚|昨晚|今早|今晨|明晨|早晨|清晨|傍晚|凌晨|深夜|半夜)$/u;

/** Numbers, amounts and ordinals (十五, 三百块一斤, 八级, 两次, 一家, 第二): what was counted is the topic, not the count. */
const ZH_QUANTITY =
  /^(?:第?[零〇一二两几三四五六七八九十百千万亿\d]+[个块元毛斤公里克次岁级倍名层楼分秒片粒杯瓶碗张本件只条位套份趟遍顿对家]*)+$/u;

/** A count of things (两辆车, 三张票, 一双鞋): the things are the topic, said alone where they are one. */
const ZH_COUNTED = /^[零〇一二两几三四五六七八九十百千万亿整满\d]+[个张本件只条位套份辆台部双把盒箱袋包支头匹棵朵间座场首篇封颗架艘段]/u;

/** English words in -ed are past verbs, except these nouns and adjectives. */
const ED_NOUNS = new Set([
  'bed',
  'red',
  'shed',
  'seed',
  'need',
  'speed',
  'feed',
  'weed',
  'wed',
  'hundred',
  'sled',
  'breed',
  'creed',
  'greed',
  'deed',
  'steed',
  'reed',
  'fred',
  'ted',
  'ned',
  'ed',
]);

const ORDINAL = /^\d{1,2}(?:st|nd|rd|th)$/i;

/** Two capitals name a thing ("HR", "AI", "LA", "TV"), though other words of two letters are fragments; not a time of day (AM, PM). */
const isAcronym = (word: string) => /^\p{Lu}{2}$/u.test(word) && word !== 'AM' && word !== 'PM';

/** Whether a word (surface form) may name a topic at all. */
export function mayBeTopic(word: string): boolean {
  const w = word.toLowerCase();
  // Single letters, short Latin fragments and single CJK characters (去, 点, 下: mostly function
  // words and verbs of motion) are noise as keywords even when they are valid search terms.
  if (/^[\p{Script=Latin}\d]{1,2}$/u.test(word) || /^[\d.,:/-]+$/.test(word) || /^\p{Script=Han}$/u.test(word)) return false;
  // A time of day ("8pm", "10:30am") or a day of the month ("5th") is when, not what.
  if (/^\d{1,2}(?:[:.]\d{2})?(?:am|pm)$/.test(w) || ORDINAL.test(w)) return false;
  if (/^\p{Script=Han}+$/u.test(word)) {
    if (ZH_TOPICS_OF_FUNCTION_CHARACTERS.has(word)) return true;
    // Han words holding a function character (也不, 我妈, 在家) rarely name a topic, unless it is one of
    // those that also make nouns (地铁, 成都, 酒吧, 方向, 个人): their function words are listed or
    // caught by the patterns below (特地, 都是, 来个).
    if ([...word].some((ch) => CJK_STOPWORDS.has(ch) && !ZH_COMPOUNDING_FUNCTION_CHARACTERS.has(ch))) return false;
    return !NOT_TOPICS_ZH.has(word) && !ZH_NOT_TOPIC.test(word) && !ZH_QUANTITY.test(word) && !ZH_COUNTED.test(word);
  }
  if (NOT_TOPICS_EN.has(w) || NOT_TOPICS_EN.has(w.replace(/['’]s$/, '')) || isAbbreviation(w)) return false;
  if (/^[a-z]{3,}ed$/.test(w) && !ED_NOUNS.has(w)) return false;
  // Adverbs in -ly and contractions ("that'll") are not topics either.
  if (
    /^[a-z]{4,}ly$/.test(w) &&
    !['family', 'italy', 'july', 'rally', 'belly', 'jelly', 'lily', 'fly', 'supply', 'ally', 'holy'].includes(w)
  )
    return false;
  return !/['’](?:ll|ve|re|d|m)$/.test(w);
}

const PHATIC: ReadonlySet<string> = new Set([...PHATIC_EN, ...PHATIC_OTHER, ...PHATIC_ZH]);

/**
 * Words that ask about the talk itself, not about anything talked of: "what did we talk about last
 * time?", "remember what I said?", "上次我们聊了什么？" name nothing to look up.
 */
const ABOUT_THE_TALK: ReadonlySet<string> = new Set([
  'talk',
  'talked',
  'talking',
  'chat',
  'chatted',
  'chatting',
  'say',
  'said',
  'tell',
  'told',
  'discuss',
  'discussed',
  'conversation',
  'last',
  'time',
  'remember',
  'recall',
  'leave',
  'left',
  'off',
  'recently',
  'lately',
  'earlier',
  'continue',
  '上次',
  '上回',
  '聊',
  '聊天',
  '聊过',
  '聊到',
  '说',
  '说过',
  '说到',
  '说的',
  '话题',
  '哪',
  '哪儿',
  '哪里',
  '记得',
  '之前',
  '刚才',
  '继续',
]);

/**
 * Words that ask what went on, not about anything in particular: "what happened yesterday?", "what
 * did I do last weekend?", "上周我做了什么？" name a time and nothing to look up in it.
 */
const WHAT_WENT_ON: ReadonlySet<string> = new Set([
  'happen',
  'happened',
  'happening',
  'anything',
  'something',
  'everything',
  'stuff',
  'doing',
  'done',
  'busy',
  'going',
  'went',
  '发生',
  '做',
  '做了',
  '干',
  '干了',
  '忙',
  '忙了',
  '事',
  '事情',
  '啥',
  '过得',
  '怎么',
  '样',
]);

/**
 * Words an opening comes back or checks in with ("I'm back", "long time no see", "miss me?", "guess
 * what", "how was your day?", 在不在, 最近还好吗, 我回来了): they name nothing to look up, though some
 * of them may name a topic elsewhere ("back pain").
 */
const COMING_BACK: ReadonlySet<string> = new Set([
  'back',
  'long',
  'time',
  'see',
  'miss',
  'guess',
  'day',
  '不在',
  '还好',
  '回来',
  '想你',
  '早',
]);

/**
 * Whether a message says nothing to look up: only greetings, thanks, laughter, fillers, function
 * words, words about the talk itself and about what went on ("hi!", "Good morning :)", "how's it
 * going?", "where did we leave off?", "what happened?", "在吗？", "最近怎么样", "上次聊了什么").
 */
export function isPhatic(text: string): boolean {
  for (const s of wordSegments(text)) {
    if (!s.isWordLike) continue;
    // "I'm", "you're", "how's": the word without its clitic, as the index reads it.
    const w = s.segment.toLowerCase().replace(/['’](?:s|m|re|ve|ll|d)$/, '');
    if (
      !PHATIC.has(w) &&
      !ABOUT_THE_TALK.has(w) &&
      !WHAT_WENT_ON.has(w) &&
      !COMING_BACK.has(w) &&
      !ENGLISH_STOPWORDS.has(w) &&
      !CJK_STOPWORDS.has(w)
    )
      return false;
  }
  return true;
}

/**
 * Chinese one-character words that say nothing of what a query looks for: verbs of going, wanting and
 * saying, degree and question words (怎么样 is 怎么 / 样), units of when (哪天, 几号, 上个月, 周几), numbers.
 */
const WEAK_HAN_WORDS: ReadonlySet<string> = new Set([
  ...'去来要想会能可说看做到用走跟回等再才先刚更最真好多少点下上一叫问找带拿放行对没不别请样么啥谁几怎天号周月年日',
  // numbers said alone (七 | 点, 三 | 个), and how big and whether it moved (小 | 龙虾, 没 | 动)
  ...'二两三四五六七八九十百千万小大动',
]);

/**
 * The index terms of the words of a query that say what it looks for: words that may name a topic
 * (mayBeTopic), one-character Chinese words that are things (猫, 茶, 车), acronyms (LA, AI), numbers
 * of three digits or more and days of the month ("the 20th", which a message says as the query does) —
 * not its function words, greetings, general verbs and other words of when.
 * "我明天要去医院体检" looks for 医院 and 体检; "What did Caroline paint?" for caroline and paint.
 */
export function contentTerms(query: string): Set<string> {
  const out = new Set<string>();
  const text = query.normalize('NFKC');
  const says = (w: string) =>
    /^\p{Script=Han}$/u.test(w) ? !WEAK_HAN_WORDS.has(w) : mayBeTopic(w) || isAcronym(w) || /\d{3}/.test(w) || ORDINAL.test(w);
  for (const s of wordSegments(text)) {
    if (s.isWordLike && says(s.segment)) for (const t of tokenize(s.segment)) out.add(t);
  }
  // A word written with hyphens is one word whatever its parts are ("check-up", "follow-up"): the index
  // holds it joined as well.
  for (const [compound] of text.matchAll(HYPHENATED)) {
    const joined = compound.replace(/-/g, '');
    if (says(joined)) for (const t of tokenize(joined)) out.add(t);
  }
  // So is the name of a work (《三体》): all of its terms are looked for.
  for (const [, name] of text.matchAll(WORK_NAME)) for (const t of tokenize(name!)) out.add(t);
  return out;
}

const HYPHENATED = /\p{L}+(?:-\p{L}+)+/gu;

/** How rare a term is in the person's memory: an idf (larger is rarer), or undefined when unknown. */
export type Idf = (term: string) => number | undefined;

interface Occurrence {
  surface: Map<string, number>;
  /** How often it was said, a word said in a quieter part (`readTopics`) counting for QUIET_WEIGHT. */
  count: number;
  /** Occurrences that are not the first word of a sentence. */
  inside: number;
  /** After a determiner or preposition ("the catalogue", "at the arcade"): a noun. */
  nounish: number;
  /** After a subject pronoun ("I painted", "it grows"): a verb. */
  verbish: number;
  /** Written with a capital after a greeting or thanks ("Thanks, Mel!", "Hey Jon"): the one spoken to. */
  addressed: number;
}

const BEFORE_NOUNS = new Set([
  ...DETERMINERS,
  'my',
  'your',
  'his',
  'her',
  'our',
  'their',
  'its',
  'of',
  'in',
  'at',
  'on',
  'for',
  'with',
  'about',
  'from',
  'new',
  'old',
  'favorite',
  'favourite',
  'first',
]);
const BEFORE_VERBS = new Set([
  'i',
  'we',
  'you',
  'he',
  'she',
  'it',
  'they',
  "i'm",
  'im',
  'to',
  'will',
  "i'll",
  "we'll",
  "you'll",
  'can',
  'could',
  'would',
  'should',
  'just',
  'also',
  'never',
  'always',
  'really',
  'and',
]);

/**
 * An -ing word after these is a verb going on ("has been throwing up", "we're moving"); after a plain
 * "is" or "was" only when a person is its subject ("she is painting the fence", not "my hobby is painting").
 */
const PROGRESSIVE_AFTER = new Set(['been', 'being', 'am', "i'm", 'im', "we're", "you're", "they're", "he's", "she's"]);
const PLAIN_BE = new Set(['is', 'are', 'was', 'were']);
const PERSONS = new Set(['i', 'we', 'you', 'he', 'she', 'they']);

/** `w` is an -ing word saying what someone is doing; `be` is the word before it. */
function progressive(w: Word, be: Word | undefined): boolean {
  if (!w.before || !/ing$/i.test(w.word)) return false;
  return PROGRESSIVE_AFTER.has(w.before) || (PLAIN_BE.has(w.before) && be?.before != null && PERSONS.has(be.before));
}

interface Word {
  word: string;
  term: string | null;
  sentence: number;
  first: boolean;
  /** The word before it in the same sentence, lower case. */
  before: string | null;
  /** Whether a comma, colon or dash stands between it and the word before ("Thanks, Mel"). */
  afterPause: boolean;
  /** Whether a pause, a bracket or a sign like & stands between it and the word before: no phrase joins them. */
  apart: boolean;
  /** Written with a capital first. */
  capital: boolean;
  /** Said in a quieter part of the text (`readTopics`). */
  quiet: boolean;
}

const SENTENCE_END = /[.!?。！？\n]/u;
const PAUSE = /[,;:—–，、；：]/u;
/** Besides a pause, what stands between two things a phrase must not join: "the doc (link) & #team". */
const APART = /[()（）[\]【】《》&#/|]/u;
/** How long a name in 《》 may be: a book's, a film's or a song's, not a passage quoted. */
const WORK_NAME_MAX = 24;
/** A name in 《》, in a query. */
const WORK_NAME = new RegExp(`《([^《》\n]{1,${WORK_NAME_MAX}})》`, 'gu');
const CAPITAL = /^\p{Lu}/u;

/**
 * The index term of a word that may name a topic, else null. Remembered: every episode an import
 * builds reads its words through here, and they repeat.
 */
const topicTerm = boundedMemo(50_000, (word) => (mayBeTopic(word) || isAcronym(word) ? (tokenize(word)[0] ?? null) : null));

/**
 * Characters that end a Chinese noun the segmenter reads apart from it (身份 | 证, 电影 | 票, 手机 | 号):
 * a word and such a character right after it are one word in a title.
 */
const ZH_NOUN_ENDINGS: ReadonlySet<string> = new Set([
  ...'证票卡费馆店站场院室厅楼单表机器车船号家区街路桥门园湖山岛寺庙宫塔节课班队团局所厂房屋床包笔杯瓶服鞋帽衣裤照片图画书报信餐饭菜肉茶酒汤粉酱药科日',
]);
const HAN_WORD = /^\p{Script=Han}{2,}$/u;
const LATIN_WORD = /^[\p{Script=Latin}-]+$/u;

/** Word segments of a text with their term, sentence and whether they open it. */
function words(text: string, quiet: readonly TextSpan[]): Word[] {
  const out: Word[] = [];
  let sentence = 0;
  let first = true;
  let afterPause = false;
  let apart = false;
  /** Where the last word ended, and where a hyphen right after it stands. */
  let end = -1;
  let hyphenAt = -1;
  /** Where a name in 《》 opened: in the text, and among the words. */
  let work: { at: number; from: number } | null = null;
  for (const seg of wordSegments(text)) {
    if (!seg.isWordLike) {
      if (seg.segment === '-' && seg.index === end) hyphenAt = end;
      // "Dr. Alvarez" goes on: the period of a title is no sentence's end.
      const title = seg.segment === '.' && seg.index === end && isAbbreviation(out.at(-1)?.word ?? '');
      if (SENTENCE_END.test(seg.segment) && !title) {
        sentence++;
        first = true;
        work = null;
      }
      if (seg.segment === '《') work = { at: seg.index + 1, from: out.length };
      // 《三体》, 《流浪地球2》: the name of a work is one word, a thing, whatever words it is made of.
      if (seg.segment === '》' && work && out.length > work.from && seg.index - work.at <= WORK_NAME_MAX) {
        const name = text.slice(work.at, seg.index).trim();
        const [head] = out.splice(work.from);
        out.push({ ...head!, word: name, term: name.toLowerCase() });
        work = null;
      }
      if (PAUSE.test(seg.segment)) afterPause = apart = true;
      else if (APART.test(seg.segment)) apart = true;
      continue;
    }
    const prev = out.at(-1);
    // A word written with hyphens is one word ("check-up", "follow-up"), named by its parts joined as the
    // index holds it, though neither part would name a topic alone.
    if (prev && hyphenAt === seg.index - 1 && LATIN_WORD.test(prev.word) && LATIN_WORD.test(seg.segment)) {
      prev.word += `-${seg.segment}`;
      const parts = prev.word.toLowerCase().split('-');
      prev.term = parts.every((w) => NUMBER_WORDS.has(w)) ? null : topicTerm(parts.join(''));
      end = seg.index + seg.segment.length;
      hyphenAt = -1;
      continue;
    }
    hyphenAt = -1;
    // A Chinese word that may name a topic and the noun ending right after it are one word (身份 | 证).
    if (seg.segment.length === 1 && ZH_NOUN_ENDINGS.has(seg.segment) && seg.index === end && prev?.term && HAN_WORD.test(prev.word)) {
      prev.word += seg.segment;
      prev.term = topicTerm(prev.word);
      end++;
      continue;
    }
    end = seg.index + seg.segment.length;
    const term = topicTerm(seg.segment);
    out.push({
      word: seg.segment,
      term,
      sentence,
      first,
      before: prev && !first ? prev.word.toLowerCase() : null,
      afterPause,
      apart,
      capital: CAPITAL.test(seg.segment),
      quiet: quiet.length > 0 && quiet.some((q) => seg.index >= q.from && seg.index < q.to),
    });
    first = false;
    afterPause = apart = false;
  }
  return namesWhole(out);
}

/** How many words a name joined by `namesWhole` may have. */
const NAME_WORDS = 3;
/** Words of when that end the names of days after any name ("Mother's Day", "Christmas Eve", "Election Night"). */
const NAME_ENDINGS: ReadonlySet<string> = new Set(['Day', 'Eve', 'Night', 'Week', 'Weekend']);
/** A weekday ends a name only after these ("Black Friday"): "see Sam Monday" names Sam. */
const WEEKDAY_NAMES = /^(?:Black|Cyber|Good|Ash|Easter|Super|Giving|Holy|Palm|Maundy|Shrove|Blue)$/;
const WEEKDAYS: ReadonlySet<string> = new Set('Monday Tuesday Wednesday Thursday Friday Saturday Sunday'.split(' '));

/**
 * The names of days, whose last word alone names no topic, and names whose first is "New", as one
 * word: "Black Friday", "Mother's Day", "Cyber Monday", "New York", "New Year's Eve" — not "Black"
 * and a weekday, or "York".
 */
function namesWhole(ws: Word[]): Word[] {
  const joins = (a: Word, b: Word) => a.sentence === b.sentence && !b.apart && a.capital && b.capital;
  const out: Word[] = [];
  for (let i = 0; i < ws.length; i++) {
    const w = ws[i]!;
    let n = 1;
    if (w.word === 'New') while (n < NAME_WORDS && ws[i + n] && joins(ws[i + n - 1]!, ws[i + n]!)) n++;
    else if (w.term !== null && w.capital)
      for (let k = 1; k < NAME_WORDS && ws[i + k] && joins(ws[i + k - 1]!, ws[i + k]!); k++) {
        const end = ws[i + k]!;
        if (end.term === null && (NAME_ENDINGS.has(end.word) || (WEEKDAYS.has(end.word) && k === 1 && WEEKDAY_NAMES.test(w.word)))) {
          n = k + 1;
          break;
        }
      }
    if (n === 1) {
      out.push(w);
      continue;
    }
    const name = ws
      .slice(i, i + n)
      .map((x) => x.word)
      .join(' ');
    out.push({ ...w, word: name, term: name.toLowerCase() });
    i += n - 1;
  }
  return out;
}

/** Used as a verb more often than as a noun. */
const verb = (o: Occurrence) => o.verbish > o.nounish;

function salience(o: Occurrence, term: string, idf: Idf | undefined, maxIdf: number): number {
  const rarity = idf ? (idf(term) ?? maxIdf) : 1;
  // Topics are things: a word used as a noun counts more, one used as a verb less.
  const role = verb(o) ? 0.4 : o.nounish > 0 ? 1.5 : 1;
  return o.count * rarity * role;
}

/** "son's" names the son (its term is "son"); inside a phrase ("son's accident") the possessive stays. */
const unpossessive = (text: string) => text.replace(/(?<=\p{L})['’]s$/u, '');

function surfaceOf(o: Occurrence): string {
  const forms = [...o.surface].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  // Lower case unless the word is only ever written capitalised (a name, an acronym).
  const lower = forms.find(([f]) => f === f.toLowerCase());
  return (lower ?? forms[0]!)[0];
}

/** A name written with a capital that begins one of the excluded names: "Mel" for Melanie, "Caro" for Caroline. */
function shortFor(w: Word, exclude: ReadonlySet<string>): boolean {
  if (w.term!.length < 3 || !w.capital) return false;
  for (const x of exclude) if (x.length > w.term!.length && x.startsWith(w.term!)) return true;
  return false;
}

/**
 * A capital inside a sentence is a name ("a move to Lisbon", "Mei and Jun"), whatever comes before
 * it; after a pause or a greeting it may be who is spoken to ("…, Mel.", "Hey Jon"), not a thing.
 */
function namesAThing(w: Word): boolean {
  return !w.first && !w.afterPause && w.capital && !(w.before && PHATIC.has(w.before));
}

/** A word in -s right before a name inside a sentence is a verb ("the train leaves Shinjuku", "Mel loves Paris"): no plural noun leads a name. */
function verbBeforeName(w: Word, next: Word | undefined): boolean {
  return !w.capital && /[^su]s$/.test(w.word) && next !== undefined && next.before !== null && namesAThing(next);
}

/** A word in -s right after "that", "which" or "who" is a verb ("a dream job that combines both"): a plural after them would take "those". */
function verbAfterRelative(w: Word): boolean {
  return !w.capital && /[^su]s$/.test(w.word) && w.before !== null && RELATIVES.has(w.before);
}
const RELATIVES: ReadonlySet<string> = new Set(['that', 'which', 'who']);

/** Words that follow a plural noun rather than a verb: "Lego sets are…", "two Lego sets for the kids". */
const AFTER_PLURALS: ReadonlySet<string> = new Set([
  ...['are', 'were', 'have', 'had', 'do', 'did', 'can', 'could', 'will', 'would', 'should', 'may', 'might', 'must'],
  ...['of', 'and', 'or', 'for', 'with', 'in', 'on', 'at', 'from', 'by', 'into', 'about', 'like', 'that', 'which', 'who'],
]);

/**
 * A word in -s right after a name, with more of the sentence after it that no plural noun leads to,
 * is a verb ("Tomorrow Beijing expects light rain", "Mochi strikes again"); not after a possessive
 * ("Mel's kids love…").
 */
function verbAfterName(w: Word, prev: Word | undefined, next: Word | undefined): boolean {
  return (
    !w.capital &&
    /[^su]s$/.test(w.word) &&
    prev !== undefined &&
    prev.capital &&
    prev.sentence === w.sentence &&
    !w.apart &&
    !/['’]s$/.test(prev.word) &&
    next !== undefined &&
    next.sentence === w.sentence &&
    !AFTER_PLURALS.has(next.word.toLowerCase())
  );
}

function collect(ws: readonly Word[], exclude: ReadonlySet<string>): Map<string, Occurrence> {
  const occ = new Map<string, Occurrence>();
  for (const [i, w] of ws.entries()) {
    if (!w.term || exclude.has(w.term) || exclude.has(w.word.toLowerCase()) || shortFor(w, exclude)) continue;
    if (w.term.length < 2 && !/\p{Script=Han}/u.test(w.term)) continue;
    const o = occ.get(w.term) ?? { surface: new Map(), count: 0, inside: 0, nounish: 0, verbish: 0, addressed: 0 };
    const weight = w.quiet ? QUIET_WEIGHT : 1;
    o.count += weight;
    if (w.capital && w.before && PHATIC.has(w.before)) o.addressed += weight;
    // "that" leads a noun ("that photo") but a verb in -s ("that combines").
    if (!verbAfterRelative(w) && ((w.before && BEFORE_NOUNS.has(w.before)) || namesAThing(w))) o.nounish++;
    else if (
      verbAfterRelative(w) ||
      (w.before && BEFORE_VERBS.has(w.before)) ||
      progressive(w, ws[i - 1]) ||
      verbBeforeName(w, ws[i + 1]) ||
      verbAfterName(w, ws[i - 1], ws[i + 1])
    )
      o.verbish++;
    if (!w.first || /\p{Script=Han}/u.test(w.word) || isAcronym(w.word)) o.inside++;
    // A capital that opens a sentence says nothing of how the word is written ("Mochi strikes again"
    // beside "my cat Mochi"); every word kept here is also met inside a sentence, so its form is known.
    if (!(w.first && /^\p{Lu}\p{Ll}+$/u.test(w.word))) o.surface.set(w.word, (o.surface.get(w.word) ?? 0) + 1);
    occ.set(w.term, o);
  }
  // A word met only at the start of sentences is an imperative or a discourse word ("Bring it",
  // "Guess what"), not a topic; nor is a name met only as the one spoken to.
  for (const [t, o] of occ) if (o.inside === 0 || o.addressed === o.count) occ.delete(t);
  return occ;
}

function maxIdfOf(terms: Iterable<string>, idf: Idf | undefined): number {
  if (!idf) return 1;
  let max = 0;
  for (const t of terms) max = Math.max(max, idf(t) ?? 0);
  return max || 1;
}

/** One reading of a text (its words and the terms that may name its topics), for `topicsFrom`. */
export interface TopicReading {
  readonly words: readonly Word[];
  /** By term: every term whose rarity `topicsFrom` looks up. */
  readonly occurrences: ReadonlyMap<string, Occurrence>;
}

/**
 * A sentence written all in capitals is shouted ("I GOT THE JOB!!!", "WE WON THE FINAL"): its capitals
 * name nothing, so it is read in lower case. One with a function word among three or more words, that
 * is: a run of acronyms ("AWS EC2 IAM") stays as written.
 */
export function unshouted(text: string): string {
  if (!/\p{Lu}{2}/u.test(text)) return text;
  return text.replace(/[^.!?。！？\n]+/gu, (sentence) => {
    const latin = sentence.match(/\p{Script=Latin}{2,}/gu);
    if (!latin || latin.length < 3 || /\p{Ll}/u.test(sentence)) return sentence;
    return latin.some((w) => ENGLISH_STOPWORDS.has(w.toLowerCase())) ? sentence.toLowerCase() : sentence;
  });
}

/** A part of a text, by UTF-16 offsets: from it, up to but not including `to`. */
export interface TextSpan {
  from: number;
  to: number;
}

/** How much a word said in a quieter part counts (a companion's replies: core/episodes/heuristic.ts). */
export const QUIET_WEIGHT = 0.5;

/**
 * `exclude`: terms (or lower-case words) never to return: the speakers' names, say. `quiet`: the parts
 * whose words count for less (a companion's replies).
 */
export function readTopics(text: string, exclude: ReadonlySet<string> = new Set(), quiet: readonly TextSpan[] = []): TopicReading {
  const ws = words(unshouted(text), quiet);
  return { words: ws, occurrences: collect(ws, exclude) };
}

/**
 * What a text is about, from one reading of it:
 * - `keywords`: its salient words, in their readable surface form. Terms are counted by their BM25 stem
 *   (so "hike", "hiking", "hiked" add up), weighted by how rare they are in the person's memory, and
 *   shown as the form used most often. Interjections, chat fillers, general verbs and words seen only at
 *   the start of a sentence are left out, in English and Chinese.
 * - `phrases`: short phrases for a title — the most salient words, joined with the salient words next
 *   to them where the text runs them together ("LGBTQ support group", "seed catalogue"), best first, no
 *   word twice.
 *
 * From a reading made before (`readTopics`): the rarity of its terms can be looked up in between.
 */
export function topicsFrom(
  { words: ws, occurrences: occ }: TopicReading,
  limits: { keywords: number; phrases: number },
  idf?: Idf,
): { keywords: string[]; phrases: string[] } {
  const maxIdf = maxIdfOf(occ.keys(), idf);
  const score = new Map([...occ].map(([t, x]) => [t, salience(x, t, idf, maxIdf)]));
  const keywords = [...occ]
    .map(([t, x]) => ({ x, t, s: score.get(t)! }))
    .sort((a, b) => b.s - a.s || b.x.count - a.x.count || a.t.localeCompare(b.t))
    .slice(0, limits.keywords)
    .map(({ x }) => unpossessive(surfaceOf(x)));
  return { keywords, phrases: phrasesOf(ws, occ, score, limits.phrases) };
}

/** A text's salient words alone (see topicsFrom), every word as rare as the others. */
export function keywords(text: string, limit: number): string[] {
  return topicsFrom(readTopics(text), { keywords: limit, phrases: 0 }).keywords;
}

function phrasesOf(ws: readonly Word[], occ: ReadonlyMap<string, Occurrence>, score: Map<string, number>, limit: number): string[] {
  if (limit === 0) return [];
  // Runs of two or three adjacent salient words in one sentence (for CJK: adjacent segmenter words)
  // make a phrase.
  const phrases = new Map<string, { terms: string[]; count: number; forms: Map<string, number>; name: boolean }>();
  for (let i = 0; i < ws.length; i++) {
    for (let n = 2; n <= 3 && i + n <= ws.length; n++) {
      const run = ws.slice(i, i + n);
      const terms = run.map((w) => w.term);
      // A pause ends a phrase: "五公里，膝盖有点疼" runs 公里 and 膝盖 together but says no 公里膝盖; so do
      // brackets and signs between things. A verb makes none either ("train leaves Shinjuku").
      if (
        terms.some((t) => !t || !score.has(t) || verb(occ.get(t)!)) ||
        run.some((w, k) => w.sentence !== run[0]!.sentence || (k > 0 && w.apart)) ||
        new Set(terms).size < n
      )
        break;
      const key = terms.join(' ');
      const p = phrases.get(key) ?? { terms: terms as string[], count: 0, forms: new Map(), name: false };
      p.count++;
      const name = run.every((w) => w.capital);
      if (name) p.name = true;
      const cjk = run.every((w) => /\p{Script=Han}/u.test(w.word));
      // A name is written as it is ("Blue Ocean Games", though "puzzle game" is said too).
      const form = cjk ? run.map((w) => w.word).join('') : run.map((w) => (name ? w.word : surfaceOf(occ.get(w.term!)!))).join(' ');
      p.forms.set(form, (p.forms.get(form) ?? 0) + 1);
      phrases.set(key, p);
    }
  }
  const candidates: { terms: string[]; text: string; s: number }[] = [
    // A word used as a verb names no topic ("Miso has been throwing up").
    ...[...occ].filter(([, x]) => !verb(x)).map(([t, x]) => ({ terms: [t], text: surfaceOf(x), s: score.get(t)! })),
    // A phrase is worth its words when the text says it more than once or writes it as a name
    // ("Spring Festival Gala"), less when once (a three-word run said once is as likely a clause —
    // "basil grows fast" — as a name).
    ...[...phrases.values()].map((p) => ({
      terms: p.terms,
      text: [...p.forms].sort((a, b) => b[1] - a[1])[0]![0],
      s: p.terms.reduce((a, t) => a + score.get(t)!, 0) * (p.count > 1 || p.name ? 1 : p.terms.length === 2 ? 0.75 : 0.5),
    })),
  ].sort((a, b) => b.s - a.s || a.terms.length - b.terms.length || a.text.localeCompare(b.text));
  const used = new Set<string>();
  const out: string[] = [];
  for (const c of candidates) {
    if (out.length >= limit) break;
    if (c.terms.some((t) => used.has(t))) continue;
    c.terms.forEach((t) => used.add(t));
    out.push(unpossessive(c.text));
  }
  return out;
}

/** Capitalised words (or acronyms), joined when consecutive. */
const NAME = /\b(?:\p{Lu}[\p{Ll}'’]+|\p{Lu}{2,})(?:\s+(?:\p{Lu}[\p{Ll}'’]+|\p{Lu}{2,}))*/gu;
const NOT_NAMES = new Set([
  'I',
  "I'm",
  'OK',
  'Oh',
  'Hey',
  'Hi',
  'Yes',
  'No',
  'Thanks',
  'Wow',
  'The',
  'It',
  'That',
  'This',
  'LOL',
  'OMG',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
  'Sunday',
  'January',
  'February',
  'March',
  'April',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]);

/**
 * Likely names of people, places and things: capitalised words that do not start a sentence. Crude,
 * but it is what a heuristic can know; the LLM builder replaces it with real entity extraction.
 */
export function properNouns(text: string, limit: number): string[] {
  const count = new Map<string, number>();
  for (const line of unshouted(text).split('\n')) {
    for (const m of line.matchAll(NAME)) {
      // A capital that opens a sentence says nothing, the names after it do; "Dr." opens no sentence.
      const opens = m.index === 0 || (/[.!?]\s$/.test(line.slice(m.index - 2, m.index)) && !abbreviationAt(line, m.index - 2));
      const name = (opens ? m[0].replace(/^\S+\s*/, '') : m[0]).replace(/['’]s$/, '');
      if (!name || NOT_NAMES.has(name) || isAbbreviation(name)) continue;
      count.set(name, (count.get(name) ?? 0) + 1);
    }
  }
  return [...count]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([n]) => n);
}
