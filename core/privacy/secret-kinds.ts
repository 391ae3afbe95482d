/**
 * The kinds of secret the privacy filter knows, each with the shapes it takes in a chat. A pattern may
 * name groups: `s` is the secret (only it is replaced), `pre` and `post` the words around it that stay,
 * so "my password is hunter2!" reads "my password is [secret: password]". Without `s` the whole match is
 * the secret. Every pattern is global; the order of the list is the order they run in (the specific
 * shapes first: a JWT after "Bearer" is a JWT).
 */

export const SECRET_KINDS = [
  'private-key',
  'anthropic-key',
  'openai-key',
  'google-key',
  'aws-key',
  'github-token',
  'slack-token',
  'stripe-key',
  'service-token',
  'jwt',
  'bearer-token',
  'connection-string',
  'credential',
  'password',
  'one-time-code',
  'card-number',
  'bank-account',
  'id-number',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface SecretShape {
  kind: SecretKind;
  /** The words of the placeholder: `[secret: openai key]`. */
  label: string;
  patterns: RegExp[];
  /** What a text holding such a secret must have: without it the patterns are not tried (prose is read once, not once a pattern). */
  needs?: RegExp;
  /**
   * A further check of a match (a card number's Luhn digit, a password that is an ordinary word), with
   * the words before the secret that stay (`pre`).
   */
  accept?: (secret: string, before: string) => boolean;
}

/** Words that follow "password is" without being one ("my password is wrong"). */
const NOT_A_PASSWORD = new Set(
  (
    'wrong incorrect invalid expired required needed missing correct right same different new old set reset changed ' +
    'too very not the a an my your his her our their this that it still already now weak strong long short secure ' +
    'safe easy hard simple complicated forgotten lost stored saved encrypted hidden private secret there here empty blank ' +
    'case sensitive protected managed string str null none undefined true false ' +
    // where it is kept ("the password for the studio wifi is on the fridge")
    'on in at under behind inside written somewhere taped printed ' +
    // how it works ("the wifi key is broken again")
    'broken working down slow fine ok okay'
  ).split(' '),
);

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Words that hold an English sentence together, none of them a word of a wallet's seed phrase. */
const SENTENCE_GLUE = new Set(
  (
    'the and you your yours with for that this are not can will should would never because anyone nobody somewhere ' +
    'keep keeps write written down paper safe safely share shared store stored them they its was were has have had ' +
    'from into onto but what when where which who how why there here then than our ours his her hers'
  ).split(' '),
);

/** Code that handles a secret is not one: a type, a call, a variable or an environment lookup. */
const notCode = (s: string) => !/[()]|^\$|\benv\b|environ/.test(s);
const notAPassword = (s: string) => !NOT_A_PASSWORD.has(s.toLowerCase().replace(/[.!?,;:]+$/, '')) && notCode(s);

/**
 * Letters drawn at random, as a generated key of letters alone is (~3 % of 20-character keys over
 * letters and digits): both cases, and two in five or more of its parts — capitals and the small
 * letters after them — with at most one small letter ("xKqJvHzWpLmTrB"), where a name in camel or
 * Pascal case is made of words ("accessTokenFromEnvironment", "XMLHttpRequest"). Measured: 80 % of
 * random keys of 16–32 letters, and 14 of 5,549 such names in TypeScript's, Node's and Electron's
 * declarations ("HTMLCollectionOf").
 */
function randomLetters(s: string): boolean {
  if (!/^[A-Za-z]{16,}$/.test(s) || !/[a-z]/.test(s) || !/[A-Z]/.test(s)) return false;
  const parts = s.match(/[A-Z]*[a-z]+|[A-Z]+/g)!;
  return parts.filter((p) => !/[a-z]{2}/.test(p)).length * 5 >= parts.length * 2;
}

/** An IBAN's check digits: the country and digits moved to the end, letters as numbers, mod 97 is 1. */
function ibanChecks(iban: string): boolean {
  const moved = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let rest = 0;
  for (const d of moved) rest = (rest * 10 + Number(d)) % 97;
  return rest === 1;
}

/** A mainland China resident identity number: a real birth date and the ISO 7064 mod 11-2 check character. */
function residentIdChecks(id: string): boolean {
  const born = new Date(`${id.slice(6, 10)}-${id.slice(10, 12)}-${id.slice(12, 14)}T00:00:00Z`);
  if (
    Number.isNaN(born.getTime()) ||
    born.getUTCFullYear() < 1900 ||
    born.toISOString().slice(0, 10).replace(/-/g, '') !== id.slice(6, 14)
  ) {
    return false;
  }
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const sum = weights.reduce((n, w, i) => n + w * Number(id[i]), 0);
  return '10X98765432'[sum % 11] === id[17]!.toUpperCase();
}

/** Issuer prefixes of the card networks (Visa, Mastercard, Amex, Diners, JCB, Discover, UnionPay). */
const CARD_ISSUER = /^(?:4|5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720|3[47]|3(?:0[0-5]|[68])|35|6(?:011|5|4[4-9]|2))/;

/**
 * Which shapes the filter knows: raised whenever they change, so what an engine already stored is
 * filtered again with them (core/forgetting/secrets.ts).
 */
export const SECRET_SHAPES_GENERATION = 5;

export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    kind: 'private-key',
    label: 'private key',
    // An unterminated block (a paste cut short) is a secret to its end.
    patterns: [
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
      // A wallet's seed phrase, named: 12 to 24 words, the key itself.
      /(?<pre>\b(?:seed|recovery|mnemonic|wallet|backup) (?:phrase|words)(?:\s+(?:is|was|are|were))?\s*[:：]?\s*["'“]?)(?<s>[a-z]{3,8}(?:[ ,]\s*[a-z]{3,8}){11,23})(?![a-z\d])/gi,
      /(?<pre>助记词\s*(?:是|为|[:：])?\s*)(?<s>[a-z]{3,8}(?:[ ,]\s*[a-z]{3,8}){11,23})(?![a-z\d])/g,
    ],
    needs: /PRIVATE KEY|\b(?:seed|recovery|mnemonic|wallet|backup) (?:phrase|words)|助记词/i,
    // Prose after "recovery phrase" has the words that hold a sentence together; a seed phrase has none.
    accept: (s) => s.startsWith('-----') || !s.split(/[ ,]+/).some((w) => SENTENCE_GLUE.has(w.toLowerCase())),
  },
  { kind: 'anthropic-key', label: 'anthropic key', patterns: [/\bsk-ant-[A-Za-z0-9_-]{20,}/g] },
  { kind: 'openai-key', label: 'openai key', patterns: [/\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g] },
  {
    kind: 'google-key',
    label: 'google key',
    patterns: [/\bAIza[0-9A-Za-z_-]{35,}/g, /\bya29\.[0-9A-Za-z_-]{20,}/g, /\bGOCSPX-[0-9A-Za-z_-]{20,}/g],
  },
  {
    kind: 'aws-key',
    label: 'aws key',
    patterns: [
      /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g,
      /(?<pre>aws[_ ]?secret[_ ]?(?:access[_ ]?)?key(?:["']?\s*[:=]|\s+is\s*[:=]?)\s*["']?)(?<s>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
      // The secret key pasted right after its access key id ("AKIA… wJalr…").
      /(?<pre>\[secret: aws key\][\s,;:/|]+)(?<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/g,
    ],
  },
  {
    kind: 'github-token',
    label: 'github token',
    patterns: [/\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g, /\bgithub_pat_[A-Za-z0-9_]{22,}/g],
  },
  {
    kind: 'slack-token',
    label: 'slack token',
    patterns: [/\bxox[abposre]-[A-Za-z0-9-]{10,}/g, /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{10,}/g],
  },
  { kind: 'stripe-key', label: 'stripe key', patterns: [/\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}/g, /\bwhsec_[A-Za-z0-9]{24,}/g] },
  {
    kind: 'service-token',
    label: 'service token',
    // npm, Hugging Face, GitLab, SendGrid, Twilio and Discord bot tokens: the shapes their services give.
    patterns: [
      /\bnpm_[A-Za-z0-9]{36}\b/g,
      /\bhf_[A-Za-z0-9]{30,}\b/g,
      /\bglpat-[A-Za-z0-9_-]{20,}/g,
      /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g,
      /\bSK[0-9a-f]{32}\b/g,
      /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b/g,
    ],
    needs: /npm_|hf_|glpat-|SG\.|SK[0-9a-f]{32}|[MNO][A-Za-z0-9_-]{23,27}\./,
  },
  { kind: 'jwt', label: 'jwt', patterns: [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g] },
  {
    kind: 'bearer-token',
    label: 'bearer token',
    patterns: [/(?<pre>\bBearer\s+)(?<s>[A-Za-z0-9._~+/=-]{16,})/gi, /(?<pre>\bAuthorization:\s*Basic\s+)(?<s>[A-Za-z0-9+/=]{8,})/gi],
  },
  {
    kind: 'connection-string',
    label: 'connection string password',
    // Only the password goes: who and where stay readable ("postgres://app:[secret: …]@db.example.com").
    patterns: [/(?<pre>\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]+:)(?<s>[^\s@/]+)(?<post>@[^\s@]+)/gi],
    needs: /:\/\//,
  },
  {
    kind: 'credential',
    label: 'credential',
    // A secret set by name, as a config file, an environment or JSON says it: DB_PASSWORD=…,
    // client_secret: …, "api_key": "…". A name is read once, from its start (inside a lookahead, which
    // is not tried again): a long dotted or dashed text is not tried at each of its dots.
    patterns: [
      // In a web address's query: "…/reset?token=9f8e…", "&X-Amz-Signature=…".
      /(?<pre>[?&][\w.-]{0,40}?(?:token|secret|password|passwd|pwd|signature|api[_-]?key|apikey)=)(?<s>[^&#\s"'<>]{6,})/gi,
      /(?<pre>(?:["'](?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key)["']|(?<![\w.?&-])(?=(?<name>[\w.-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|auth[_-]?key|private[_-]?key)(?:[_.-][\w.-]*)?))\k<name>["']?)\]?\s*[:=]\s*["']?)(?<s>[^\s"'`,;]{4,})/gi,
    ],
    needs: /[:=]/,
    // A name with a separator in it (`db_password`, `app.secret`) or quoted: a plain "password:" is
    // the password kind's. Not a variable (`headers.token = token`) or an address: a value of letters
    // alone is one only in quotes, after an environment's name (`DB_PASSWORD=sunflower`), set as a
    // password in a config (`db.password: sunflower`) or drawn at random (`api_key: xKqJvHzWpLmTrBnSgDfC`),
    // a number only a password's (`token_limit: 8000` is a setting).
    accept: (s, before) =>
      (/^["'?&]/.test(before) || /^[\w.-]*[_.-]/.test(before)) &&
      notAPassword(s) &&
      (!/^\d{1,8}$/.test(s) || /pass|pwd/i.test(before)) &&
      !/^[a-z][a-z0-9+.-]*:\/\//i.test(s) &&
      (/[^A-Za-z_]/.test(s) ||
        randomLetters(s) ||
        /["']\s*$/.test(before) ||
        /^[A-Z0-9_]+\s*=/.test(before) ||
        /^[\w.-]*(?:passw(?:or)?d|pwd):\s*$/i.test(before)),
  },
  {
    kind: 'password',
    label: 'password',
    patterns: [
      /(?<pre>\b(?:password|passwd|passphrase|pwd|pw|passcode|pin)(?: (?:for|to|of|on|at) [\w.@-]+(?: [\w.@-]+){0,6})?(?:\s+(?:is|was|is now|will be)\s*[:：]?|['’]s(?=\s)|\s*[:=：])\s*["'“‘]?)(?<s>[a-z]{4}(?: [a-z]{4}){3}(?![\w])|[^\s"'”’]{3,})/gi,
      // A wifi's, jotted down: "wifi pass sunflower42".
      /(?<pre>\b(?:wi-?fi|wlan|router)\s+(?:pass|pw|key|code)\b(?:\s+is)?\s*[:=：]?\s*["'“‘]?)(?<s>[^\s"'”’]{3,})/gi,
      /(?<pre>(?:密码|密碼|口令|PIN码|pin码)(?:\s*(?:是|为|為|改成了?|改为|设为|設為)\s*[:：]?|\s*[:：=])\s*["'“‘「]?)(?<s>[^\s，。,；;！!？?、"'“”‘’」]{3,})/g,
      // Jotted down right after its name, as logins are ("user admin password Kx9#mP2$", "pass: letmein99",
      // "wifi 密码 12345678"): a value with a digit, or a sign inside it ("password manager" is none). Values
      // are read to at most 64 characters, so a long text without spaces is not read again at each name.
      /(?<pre>\b(?:password|passwd|pwd|pw)\s+|\bpass\s*[:=：]\s*|(?:密码|密碼|口令)\s*)(?<s>(?=[\x21\x23-\x26\x28-\x7e]{0,63}?(?:\d|[!@#$%^&*_+=~-][\x21\x23-\x26\x28-\x7e]))[\x21\x23-\x26\x28-\x7e]{4,64})(?<![.,;:!?])(?=[.,;:!?]*(?![\x21-\x7e]))/gi,
      // On a command line: mysql's -pSECRET, curl's -u user:SECRET.
      /(?<pre>\bmysql(?:dump|admin)?\b[^\n]{0,200}?\s-p)(?<s>[^\s"'-][^\s"']*)/g,
      /(?<pre>\bcurl\b[^\n]{0,200}?\s(?:-u|--user)\s+["']?[^\s:"']+:)(?<s>[^\s"']+)/g,
      // After a login's name and who logs in: "Netflix login: sam.k@gmail.com / SunnyDays2024".
      /(?<pre>\b(?:login|log-in|sign-in|credentials|creds|username|user)(?:\s+is)?\s*[:：=]?\s*[^\s/|,]{1,64}\s*[/|]\s*)(?<s>(?=[\x21\x23-\x26\x28-\x7e]{0,63}?[A-Za-z])(?=[\x21\x23-\x26\x28-\x7e]{0,63}?(?:\d|[!@#$%^&*_+=~-][\x21\x23-\x26\x28-\x7e]))[\x21\x23-\x26\x28-\x7e]{4,64})(?<![.,;:!?])(?=[.,;:!?]*(?![\x21-\x7e]))/gi,
    ],
    needs: /\b(?:pass|pw|pin|wi-?fi|wlan|router|log-?in|sign-in|creds|user|mysql|curl)|密[码碼]|口令/i,
    accept: notAPassword,
  },
  {
    kind: 'one-time-code',
    label: 'one-time code',
    patterns: [
      /(?<pre>(?<!\b(?:zip|area|postal|post|country|error|status|exit|source|reference|product|promo)\s)\b(?:code|otp|passcode|verification code|security code|2fa code|auth code|login code|one[- ]time (?:code|password))(?:\s+(?:is|was)\s*[:：]?|\s*[:：=]|\s)\s*)(?<s>\d{4,8})\b/gi,
      /\b(?<s>\d{4,8})(?<post>\s+is your\b[^.\n]{0,40}?\b(?:code|otp|passcode|pin)\b)/gi,
      /(?<pre>(?:验证码|驗證碼|校验码|校驗碼|动态码|動態碼|动态密码|短信码|确认码|確認碼)[^\d\n]{0,8}?)(?<s>\d{4,8})(?!\d)/g,
      /(?<!\d)(?<s>\d{4,8})(?<post>\s*(?:是|为|為)?\s*(?:您的|你的)?[^\d\n]{0,8}?(?:验证码|驗證碼|校验码|动态码|动态密码))/g,
      // An account's recovery codes, pasted together: "recovery codes: 7f3k-9d2m 4h8s-1p6q".
      /(?<pre>\b(?:recovery|backup|2fa|mfa) codes?(?:\s+(?:is|are|was|were))?\s*[:：]?\s*)(?<s>(?=[a-z-]*\d)[a-z0-9]{4,}(?:-[a-z0-9]{3,})*(?:[ ,]+(?=[a-z-]*\d)[a-z0-9]{4,}(?:-[a-z0-9]{3,})*)*)/gi,
      // A lock's combination: "the safe combination is 12-34-56".
      /(?<pre>\b(?:combination|combo)(?: (?:for|to|of|on) [\w-]+(?: [\w-]+){0,3})?(?:\s+(?:is|was)\s*[:：]?|\s*[:=：])\s*)(?<s>\d{1,3}(?:[- ]\d{1,3}){2,3}|\d{3,8})(?![\d-])/gi,
    ],
    needs: /\d{4}|\bcodes?\b|\bcombo|combination/i,
  },
  {
    kind: 'card-number',
    label: 'card number',
    // 13–19 digits in one run or in groups of four (a 19-digit UnionPay card's last group of three; Amex
    // 4-6-5), not after a + (phone numbers); the security code on its back, named.
    patterns: [
      /(?<![\d+])(?:\d{13,19}|\d{4}([ -])\d{4}\1\d{4}\1(?:\d{4}\1\d{1,3}|\d{1,7})|\d{4}([ -])\d{6}\2\d{5})(?!\d)/g,
      /(?<pre>\b(?:cvv2?|cvc2?|csc|cid)(?:\s+(?:is|was)|\s*[:=：#])?\s*)(?<s>\d{3,4})(?!\d)/gi,
      /(?<pre>(?:安全码|背面(?:的)?三位数?)\s*(?:是|为|[:：])?\s*)(?<s>\d{3,4})(?!\d)/g,
    ],
    accept: (s) => {
      const digits = s.replace(/\D/g, '');
      if (digits.length <= 4) return true;
      return digits.length >= 13 && digits.length <= 19 && CARD_ISSUER.test(digits) && !/^(\d)\1+$/.test(digits) && luhn(digits);
    },
  },
  {
    kind: 'bank-account',
    label: 'bank account',
    // An IBAN, in one run or in groups of four, whose check digits hold.
    patterns: [/\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?\b/g],
    accept: (s) => {
      const iban = s.replace(/ /g, '');
      return iban.length >= 15 && iban.length <= 34 && ibanChecks(iban);
    },
  },
  {
    kind: 'id-number',
    label: 'id number',
    patterns: [
      // A US social security number, named.
      /(?<pre>\b(?:ssn|social security(?: number| no\.?| #)?)(?:\s+(?:is|was))?\s*[:=：#]?\s*)(?<s>\d{3}[- ]?\d{2}[- ]?\d{4})(?!\d)/gi,
      // A passport's number, named.
      /(?<pre>\bpassport(?: (?:number|no\.?|#))?(?:\s+(?:is|was))?\s*[:=：#]?\s*)(?<s>(?=[A-Z0-9]*\d)[A-Z0-9]{6,9})\b/gi,
      /(?<pre>护照号?码?\s*(?:是|为|[:：])?\s*)(?<s>[A-Z0-9]{6,9})(?![A-Z0-9])/gi,
      // A mainland China resident identity number, by its birth date and check character, named or not.
      /(?<![\dA-Za-z])(?<s>\d{17}[\dXx])(?![\dA-Za-z])/g,
    ],
    accept: (s) => !/^\d{17}[\dXx]$/.test(s) || residentIdChecks(s),
  },
];
