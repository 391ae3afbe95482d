import { describe, expect, it } from 'vitest';
import { PrivacyConfig } from '../../core/context/privacy-config.js';
import { redactNamedSecret, redactText } from '../../core/privacy/redact.js';
import { NEAR_MISSES, SECRET_LINES } from './secrets.js';

const rules = PrivacyConfig.parse({});

/** Each pasted text reads as shown, with one secret replaced. */
function expectReplaced(said: readonly string[][]) {
  for (const [text, shown] of said) expect(redactText(text!, rules), text).toEqual({ value: shown, redacted: 1 });
}

describe('the privacy filter', () => {
  it.each(SECRET_LINES.map((l) => [l.kind, l] as const))('replaces a %s with its placeholder', (_kind, l) => {
    const out = redactText(l.text, rules);
    expect(out).toEqual({ value: l.text.replace(l.secret, l.placeholder), redacted: 1 });
  });

  it('keeps the words around a secret, so the conversation still reads', () => {
    expect(redactText('my wifi password is hunter2xyz! by the way', rules).value).toBe('my wifi password is [secret: password] by the way');
    expect(redactText('DATABASE_URL=postgres://app:pw12345@db.example.com/prod', rules).value).toBe(
      'DATABASE_URL=postgres://app:[secret: connection string password]@db.example.com/prod',
    );
    expect(redactText('家里的密码是 abc12345，记住了', rules).value).toBe('家里的密码是 [secret: password]，记住了');
  });

  it('finds a password however the sentence names what it opens', () => {
    const said = [
      ['my password for the studio wifi is clay4ever!', 'my password for the studio wifi is [secret: password]'],
      ['The password to my bank account is Tr0ub4dor&3.', 'The password to my bank account is [secret: password]'],
      ['the passcode at the studio back door is 48213', 'the passcode at the studio back door is [secret: password]'],
      ["my password's hunter2xyz, don't tell", "my password's [secret: password] don't tell"],
      ['pw for the wifi at the cabin is pine-cone-77, remind me', 'pw for the wifi at the cabin is [secret: password] remind me'],
    ];
    expectReplaced(said);
  });

  it('finds tokens in a web address, a Basic authorization, and the tokens npm, Hugging Face, GitLab, SendGrid, Twilio and Discord give', () => {
    const said = [
      [
        'reset: https://app.example.com/reset?token=9f8e7d6c5b4a3928&lang=en',
        'reset: https://app.example.com/reset?token=[secret: credential]&lang=en',
      ],
      ['Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==', 'Authorization: Basic [secret: bearer token]'],
      ['hf_abcdefghijklmnopqrstuvwxyz123456 is my token', '[secret: service token] is my token'],
      ['gitlab glpat-Ab1Cd2Ef3Gh4Ij5Kl6Mn', 'gitlab [secret: service token]'],
      ['SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', '[secret: service token]'],
      ['twilio SK0123456789abcdef0123456789abcdef', 'twilio [secret: service token]'],
      ['bot token MTA1MjM0NTY3ODkwMTIzNDU2Nw.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789', 'bot token [secret: service token]'],
    ];
    expectReplaced(said);
  });

  it('finds passwords jotted after their name or a login, recovery codes, combinations and seed phrases', () => {
    const said = [
      ['username sam_k password SunnyDays2024', 'username sam_k password [secret: password]'],
      ['ssh root@10.0.0.5 password Kx9#mP2$.', 'ssh root@10.0.0.5 password [secret: password].'],
      ['user: admin pass: letmein99', 'user: admin pass: [secret: password]'],
      ['wifi 密码 12345678', 'wifi 密码 [secret: password]'],
      ['账号sam密码Sunny2024', '账号sam密码[secret: password]'],
      ['my recovery codes: 7f3k-9d2m 4h8s-1p6q, keep them', 'my recovery codes: [secret: one-time code], keep them'],
      ['the combination for the bike lock is 4-8-15', 'the combination for the bike lock is [secret: one-time code]'],
      ['银行卡号 6222 0212 3456 7890 128', '银行卡号 [secret: card number]'],
      ['seed phrase: legal winner thank year wave sausage worth useful legal winner thank yellow', 'seed phrase: [secret: private key]'],
      ['助记词：legal winner thank year wave sausage worth useful legal winner thank yellow', '助记词：[secret: private key]'],
      ['my gmail app password is abcd efgh ijkl mnop', 'my gmail app password is [secret: password]'],
      ['mysql -u root -pS3cretPass db', 'mysql -u root -p[secret: password] db'],
      ['curl -u admin:S3cretPass https://x', 'curl -u admin:[secret: password] https://x'],
    ];
    expectReplaced(said);
  });

  it('finds secrets as people paste them: shorthand, config and code, cards with their codes, accounts and ID numbers', () => {
    const said = [
      ['pw: Tr0ub4dor&3', 'pw: [secret: password]'],
      ["os.environ['DB_PASSWORD'] = 'sunflower'", "os.environ['DB_PASSWORD'] = '[secret: credential]'"],
      ['client_secret=Zm9vYmFyYmF6cXV4MTIzNDU2', 'client_secret=[secret: credential]'],
      ['  db.password: sunflower', '  db.password: [secret: credential]'],
      // A generated key of letters alone, its cases drawn at random.
      ['client_secret = xKqJvHzWpLmTrBnSgDfC', 'client_secret = [secret: credential]'],
      ['auth_token: AbCdEfGhIjKlMnOpQrStUv', 'auth_token: [secret: credential]'],
      ['the aws secret access key is wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'the aws secret access key is [secret: aws key]'],
      ['AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '[secret: aws key] [secret: aws key]'],
      ['card 4111 1111 1111 1111 exp 09/27 cvv 123', 'card [secret: card number] exp 09/27 cvv [secret: card number]'],
      ['卡背面三位数是 382', '卡背面三位数是 [secret: card number]'],
      ['GB82WEST12345698765432', '[secret: bank account]'],
      ['passport number X1234567', 'passport number [secret: id number]'],
      ['我的护照号码是E12345678', '我的护照号码是[secret: id number]'],
    ];
    for (const [text, shown] of said) expect(redactText(text!, rules).value, text).toBe(shown);
    // An IBAN or an ID number whose check fails is none.
    expect(redactText('IBAN DE88 3704 0044 0532 0130 00', rules).redacted).toBe(0);
    expect(redactText('身份证号 110105194912310021', rules).redacted).toBe(0);
  });

  it.each(NEAR_MISSES.map((t) => [t]))('leaves a line without secrets untouched: %s', (t) => {
    expect(redactText(t, rules)).toEqual({ value: t, redacted: 0 });
  });

  it('a secret already replaced is not counted again (a key given as a password)', () => {
    const key = SECRET_LINES.find((l) => l.kind === 'openai-key')!.secret;
    const out = redactText(`my password is ${key}`, rules);
    expect(out).toEqual({ value: 'my password is [secret: openai key]', redacted: 1 });
    expect(redactText(out.value, rules).redacted).toBe(0);
  });

  it('kinds switch off one by one, the whole filter too, and the person adds their own patterns', () => {
    const card = SECRET_LINES.find((l) => l.kind === 'card-number')!;
    const noCards = PrivacyConfig.parse({ kinds: { 'card-number': false } });
    expect(redactText(card.text, noCards).value).toBe(card.text);
    expect(redactText('my password is hunter2xyz', noCards).redacted).toBe(1);
    expect(redactText(card.text, PrivacyConfig.parse({ enabled: false })).value).toBe(card.text);

    const own = PrivacyConfig.parse({ patterns: [{ name: 'employee id', regex: 'EMP-\\d{6}', flags: 'i' }] });
    expect(redactText('badge emp-123456 at the door', own)).toEqual({ value: 'badge [secret: employee id] at the door', redacted: 1 });
    expect(PrivacyConfig.safeParse({ patterns: [{ name: 'bad', regex: '(' }] }).success).toBe(false);
    expect(PrivacyConfig.safeParse({ patterns: [{ name: 'empty', regex: 'x*' }] }).success).toBe(false);
  });

  it('the value of a fact named as a password is a secret whatever it looks like', () => {
    expect(redactNamedSecret('account:gmail password', 'plainwords', rules).value).toBe('[secret: password]');
    expect(redactNamedSecret('person:alice', 'likes tea', rules).value).toBe('likes tea');
  });
});
