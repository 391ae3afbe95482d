import type { SecretKind } from '../../core/privacy/secret-kinds.js';

/**
 * One made-up secret of each kind, in a sentence of a chat (English or Chinese), with the secret alone
 * for byte searches. The keys are assembled from parts so no scanner takes this file for a leak.
 */

const j = (...parts: string[]) => parts.join('');

export interface SecretLine {
  kind: SecretKind;
  /** The raw secret: no file, request or result may contain it. */
  secret: string;
  /** The chat line that carries it. */
  text: string;
  /** The placeholder the line must show instead. */
  placeholder: string;
}

const line = (kind: SecretKind, label: string, secret: string, text: (s: string) => string): SecretLine => ({
  kind,
  secret,
  text: text(secret),
  placeholder: `[secret: ${label}]`,
});

const privateKey = j(
  '-----BEGIN RSA ',
  'PRIVATE KEY-----\nMIIEowIBAAKCAQEAzQx7RlT0Zp3mLq9vW8yHcK2sJ4dN6fGa1bE5tU0iOoPqXrYw\n',
  'kZ3vB8nM2lK7jH6gF5dS4aQ1wE9rT0yU3iO8pL2kJ7hG6fD5sA4zX1cV9bN0mQ==\n-----END RSA ',
  'PRIVATE KEY-----',
);

export const SECRET_LINES: SecretLine[] = [
  line(
    'openai-key',
    'openai key',
    j('sk-', 'proj-', 'T3stK3yAbCdEfGhIjKlMnOpQrStUvWxYz0123456789ab'),
    (s) => `here is the openai key ${s} for the bot`,
  ),
  line(
    'anthropic-key',
    'anthropic key',
    j('sk-', 'ant-', 'api03-', 'Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa-xyz'),
    (s) => `Anthropic 的密钥：${s}，别外传`,
  ),
  line('google-key', 'google key', j('AI', 'za', 'SyD3m0K3yF0rT3st1ngPurp0s3sOnlyXYZ1'), (s) => `maps key = ${s}`),
  line('aws-key', 'aws key', j('AK', 'IA', 'IOSFODNN7EXAMPL9'), (s) => `AWS access key id ${s} in us-east-1`),
  line('aws-key', 'aws key', j('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY'), (s) => `aws_secret_access_key = ${s}`),
  line('github-token', 'github token', j('gh', 'p_', 'R4nd0mT0k3nF0rT3st1ngAbCdEfGhIjKlMnOp'), (s) => `我的 GitHub token 是 ${s}`),
  line('slack-token', 'slack token', j('xo', 'xb-', '1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUv'), (s) => `slack bot token ${s}`),
  line('stripe-key', 'stripe key', j('sk', '_live_', '51HdTestStripeKeyAbCdEfGh12'), (s) => `Stripe: ${s}`),
  line('service-token', 'service token', j('np', 'm_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'), (s) => `publish with ${s} from CI`),
  line(
    'jwt',
    'jwt',
    j(
      'eyJ',
      'hbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9',
      '.',
      'eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0',
      '.',
      'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    ),
    (s) => `session cookie was ${s} yesterday`,
  ),
  line(
    'bearer-token',
    'bearer token',
    j('Zx81', 'Qw7mTok3nValue99pLm'),
    (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.com`,
  ),
  line('private-key', 'private key', privateKey, (s) => `deploy key below\n${s}\nthanks`),
  line(
    'private-key',
    'private key',
    j('abandon ability able about above absent ', 'absorb abstract absurd abuse access accident'),
    (s) => `wallet seed phrase: ${s}`,
  ),
  line(
    'connection-string',
    'connection string password',
    j('S3cr3t', 'Pa55!'),
    (s) => `DATABASE_URL=postgres://app:${s}@db.example.com:5432/prod`,
  ),
  line('credential', 'credential', j('s3cr3t', '-Db!x'), (s) => `my .env has DB_PASSWORD=${s} and it still fails`),
  line('credential', 'credential', j('a8f5f167f44f', '4964e6c998dee827110c'), (s) => `{"api_key": "${s}", "region": "eu"}`),
  line('password', 'password', j('hunter', '2xyz!'), (s) => `my wifi password is ${s} by the way`),
  line('password', 'password', j('sunflower', '42'), (s) => `wifi pass ${s}`),
  line('password', 'password', j('Sunny', 'Days2024'), (s) => `Netflix login: sam.k@example.com / ${s}`),
  line('password', 'password', j('猫猫', 'love2024'), (s) => `家里路由器的密码是${s}，记住了`),
  line('one-time-code', 'one-time code', j('4829', '17'), (s) => `your verification code is ${s}`),
  line('one-time-code', 'one-time code', j('7305', '62'), (s) => `【银行】验证码${s}，5分钟内有效`),
  line('one-time-code', 'one-time code', j('7f3k-9d2m ', '4h8s-1p6q'), (s) => `github recovery codes: ${s}`),
  line('card-number', 'card number', j('4111 1111 ', '1111 1111'), (s) => `pay with card ${s} please`),
  line('card-number', 'card number', j('62220212', '34567894'), (s) => `我的银行卡号 ${s}`),
  line('bank-account', 'bank account', j('DE89 3704 0044 ', '0532 0130 00'), (s) => `send it to IBAN ${s}, thanks`),
  line('id-number', 'id number', j('123-45-', '6789'), (s) => `my SSN is ${s} for the form`),
  line('id-number', 'id number', j('1101051949', '1231002X'), (s) => `身份证号 ${s}，别告诉别人`),
];

/** Lines with numbers, dates, phone numbers and code that hold no secret: the filter leaves them as they are. */
export const NEAR_MISSES: string[] = [
  'The meeting is on 2023-05-08 at 14:30, room 4111.',
  'Call me at +86 138 0013 8000 or 415-555-0132.',
  '我的手机号是 13800138000，明天下午三点见。',
  'Order #1234567890 shipped on 2024/03/15; tracking 9400111899223817576483.',
  'The zip code 94103 is in San Francisco; area code 415.',
  'I wrote this code in 2023 and it returned error code 4040.',
  'const password = readPassword(); if (!password) throw new Error("password is required");',
  'type Login = { user: string; password: string };',
  'The password is wrong, please reset it.',
  'The password for the studio wifi is on the fridge, the one for the guest network is written in my notes.',
  'Use `git log --since=2024-01-01 | head -n 20` to see recent commits.',
  'Pi is 3.14159265358979 and e is 2.718281828.',
  '身份证后四位是 1234 吗？不是，是 2023 年办的。',
  'Visit https://example.com:8080/path?id=12345 for details.',
  'sk-learn is a typo for scikit-learn.',
  'The total was 1,234,567.89 CNY on 2024年5月1日.',
  'pin the tab, then run npm test',
  'const token = getToken(); headers.token = token; self.api_key = api_key;',
  'export GITHUB_TOKEN=$(cat token.txt); auth_token: ${AUTH_TOKEN}; max_tokens: 4096; token_limit: 8000',
  'password_reset_url: https://example.com/reset',
  'access_token: accessTokenFromEnvironment, token_type: bearerAuthentication, auth_key: XMLHttpRequestFactoryBean',
  'The wifi key is broken again, and the cvv of the card is on its back.',
  'ISBN 9780306406157, room DE89, I drove 987-65-4321 miles.',
  '订单号 110101199003074518 已发货。',
  'I set up a password manager, then used the password reset link twice; the zip is password protected.',
  'Your recovery phrase is something you should never share with anyone, because anyone can steal your funds with it.',
  'The winning combination is 3 to 1; pass it on. 密码错误，请重试。',
  'See https://example.com/search?q=token&page_token=2&sort_key=created_at for Basic training on Monday.',
  'Run mysql -u root -p mydb and type it when asked; curl -u admin https://example.com asks too.',
];
