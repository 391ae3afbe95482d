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
  'jwt',
  'bearer-token',
  'connection-string',
  'password',
  'one-time-code',
  'card-number',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface SecretShape {
  kind: SecretKind;
  /** The words of the placeholder: `[secret: openai key]`. */
  label: string;
  patterns: RegExp[];
  /** A further check of a match (a card number's Luhn digit, a password that is an ordinary word). */
  accept?: (secret: string) => boolean;
}

/** Words that follow "password is" without being one ("my password is wrong"). */
const NOT_A_PASSWORD = new Set(
  (
    'wrong incorrect invalid expired required needed missing correct right same different new old set reset changed ' +
    'too very not the a an my your his her our their this that it still already now weak strong long short secure ' +
    'safe easy hard simple complicated forgotten lost stored saved encrypted hidden private secret there here empty blank ' +
    'case sensitive protected managed string str null none undefined true false ' +
    // where it is kept ("the password for the studio wifi is on the fridge")
    'on in at under behind inside written somewhere taped printed'
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

/** Issuer prefixes of the card networks (Visa, Mastercard, Amex, Diners, JCB, Discover, UnionPay). */
const CARD_ISSUER = /^(?:4|5[1-5]|222[1-9]|22[3-9]|2[3-6]|27[01]|2720|3[47]|3(?:0[0-5]|[68])|35|6(?:011|5|4[4-9]|2))/;

/**
 * Which shapes the filter knows: raised whenever they change, so what an engine already stored is
 * filtered again with them (core/forgetting/secrets.ts).
 */
export const SECRET_SHAPES_GENERATION = 2;

export const SECRET_SHAPES: readonly SecretShape[] = [
  {
    kind: 'private-key',
    label: 'private key',
    // An unterminated block (a paste cut short) is a secret to its end.
    patterns: [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g],
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
      /(?<pre>aws_?secret_?(?:access_?)?key["']?\s*[:=]\s*["']?)(?<s>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
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
  { kind: 'jwt', label: 'jwt', patterns: [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g] },
  { kind: 'bearer-token', label: 'bearer token', patterns: [/(?<pre>\bBearer\s+)(?<s>[A-Za-z0-9._~+/=-]{16,})/gi] },
  {
    kind: 'connection-string',
    label: 'connection string password',
    // Only the password goes: who and where stay readable ("postgres://app:[secret: …]@db.example.com").
    patterns: [/(?<pre>\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@]+:)(?<s>[^\s@/]+)(?<post>@[^\s@]+)/gi],
  },
  {
    kind: 'password',
    label: 'password',
    patterns: [
      /(?<pre>\b(?:password|passwd|passphrase|pwd|passcode|pin)(?: (?:for|to|of|on|at) [\w.@-]+(?: [\w.@-]+){0,3})?(?:\s+(?:is|was|is now|will be)\s*[:：]?|['’]s(?=\s)|\s*[:=：])\s*["'“‘]?)(?<s>[^\s"'”’]{3,})/gi,
      /(?<pre>(?:密码|密碼|口令|PIN码|pin码)(?:\s*(?:是|为|為|改成了?|改为|设为|設為)\s*[:：]?|\s*[:：=])\s*["'“‘「]?)(?<s>[^\s，。,；;！!？?、"'“”‘’」]{3,})/g,
    ],
    // Code that handles a password is not one: a type, a call, a variable or an environment lookup.
    accept: (s) => !NOT_A_PASSWORD.has(s.toLowerCase().replace(/[.!?,;:]+$/, '')) && !/[()]|^\$|\benv\b|environ/.test(s),
  },
  {
    kind: 'one-time-code',
    label: 'one-time code',
    patterns: [
      /(?<pre>(?<!\b(?:zip|area|postal|post|country|error|status|exit|source|reference|product|promo)\s)\b(?:code|otp|passcode|verification code|security code|2fa code|auth code|login code|one[- ]time (?:code|password))(?:\s+(?:is|was)\s*[:：]?|\s*[:：=]|\s)\s*)(?<s>\d{4,8})\b/gi,
      /\b(?<s>\d{4,8})(?<post>\s+is your\b[^.\n]{0,40}?\b(?:code|otp|passcode|pin)\b)/gi,
      /(?<pre>(?:验证码|驗證碼|校验码|校驗碼|动态码|動態碼|动态密码|短信码|确认码|確認碼)[^\d\n]{0,8}?)(?<s>\d{4,8})(?!\d)/g,
      /(?<!\d)(?<s>\d{4,8})(?<post>\s*(?:是|为|為)?\s*(?:您的|你的)?[^\d\n]{0,8}?(?:验证码|驗證碼|校验码|动态码|动态密码))/g,
    ],
  },
  {
    kind: 'card-number',
    label: 'card number',
    // 13–19 digits in one run or in groups of four (Amex 4-6-5), not after a + (phone numbers).
    patterns: [/(?<![\d+])(?:\d{13,19}|\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}|\d{4}([ -])\d{6}\2\d{5})(?!\d)/g],
    accept: (s) => {
      const digits = s.replace(/\D/g, '');
      return digits.length >= 13 && digits.length <= 19 && CARD_ISSUER.test(digits) && !/^(\d)\1+$/.test(digits) && luhn(digits);
    },
  },
];
