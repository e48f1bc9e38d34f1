// Writes test/fixtures/pii/utterances.json: utterances as a recogniser writes them (numbers spoken as words,
// or written as digits), each with the word spans of the PII it contains. Deterministic (seeded), so the
// file only changes when this script does. Run: node scripts/generate-pii-utterances.mjs
import { writeFileSync } from 'node:fs';

let seed = 20261126;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = (list) => list[Math.floor(random() * list.length)];
const digitsOf = (length, first = '') =>
  first + Array.from({ length: length - first.length }, () => Math.floor(random() * 10)).join('');

const DIGIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const TEENS = [
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
/** "zero"/"oh" per digit, or now and then a pair said as one number ("fifty five"). */
function sayDigits(digits) {
  const words = [];
  for (let index = 0; index < digits.length; index++) {
    const pair = digits.slice(index, index + 2);
    // "seventy" then "four" would read as 74: a round tens is never said as a pair.
    if (pair.length === 2 && pair[0] !== '0' && (pair[0] === '1' || pair[1] !== '0') && random() < 0.2) {
      const [tens, unit] = [Number(pair[0]), Number(pair[1])];
      if (tens === 1) words.push(TEENS[unit]);
      else words.push(TENS[tens], ...(unit ? [DIGIT_WORDS[unit]] : []));
      index++;
    } else words.push(digits[index] === '0' && random() < 0.5 ? 'oh' : DIGIT_WORDS[Number(digits[index])]);
  }
  return words.join(' ');
}
function luhnComplete(body) {
  let sum = 0;
  for (let index = 0; index < body.length; index++) {
    let digit = Number(body[body.length - 1 - index]);
    if (index % 2 === 0) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return body + String((10 - (sum % 10)) % 10);
}
function iban(country, bban) {
  const numeric = `${bban}${country}00`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of numeric) remainder = (remainder * 10 + Number(digit)) % 97;
  return `${country}${String(98 - remainder).padStart(2, '0')}${bban}`;
}
const group = (text, size) => text.match(new RegExp(`.{1,${size}}`, 'g')).join(' ');
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const ORDINALS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
  'twentieth',
  'twenty first',
  'twenty second',
  'twenty third',
  'twenty fourth',
  'twenty fifth',
  'twenty sixth',
  'twenty seventh',
  'twenty eighth',
];
const sayYear = (year) =>
  year >= 2000
    ? `two thousand ${year % 100 ? sayDigits(String(year % 100)) : ''}`.trim()
    : `nineteen ${TENS[Math.floor((year % 100) / 10)]} ${DIGIT_WORDS[year % 10]}`.replace(/ zero$/, '');

const ENTITY = {
  phone_number: () => {
    const digits = `${pick(['415', '212', '646', '303', '617'])}${digitsOf(7, pick(['2', '5', '8']))}`;
    return random() < 0.6
      ? sayDigits(digits)
      : pick([
          `${digits.slice(0, 3)}-${digits.slice(3, 6)}-${digits.slice(6)}`,
          `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`,
          `+1 ${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6)}`,
        ]);
  },
  credit_card_number: () => {
    const digits = luhnComplete(digitsOf(15, pick(['4', '51', '37'])));
    return random() < 0.6 ? sayDigits(digits) : group(digits, 4);
  },
  banking_information: () => {
    if (random() < 0.3) return `account number ${sayDigits(digitsOf(8, '1'))}`;
    const value = pick([
      () => iban('DE', digitsOf(18)),
      () => iban('GB', `NWBK${digitsOf(14)}`),
      () => iban('FR', digitsOf(23)),
    ])();
    return random() < 0.5
      ? group(value, 4)
      : [...value]
          .map((char) => (/\d/.test(char) ? DIGIT_WORDS[Number(char)] : char.toLowerCase()))
          .join(' ');
  },
  us_social_security_number: () => {
    const digits = `${pick(['123', '219', '458', '501'])}${digitsOf(2, '4')}${digitsOf(4, '1')}`;
    // Spoken without "social security" before it: nine digits that read as a phone number.
    if (random() < 0.15) return sayDigits(digits);
    return random() < 0.5
      ? `social security number is ${sayDigits(digits)}`
      : `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`;
  },
  date_of_birth: () => {
    const year = 1950 + Math.floor(random() * 55);
    const month = Math.floor(random() * 12);
    const day = Math.floor(random() * 28);
    return pick([
      () => `${MONTHS[month]} ${ORDINALS[day]} ${sayYear(year)}`,
      () => `the ${ORDINALS[day]} of ${MONTHS[month]} ${sayYear(year)}`,
      () => `${month + 1}/${day + 1}/${year}`,
      // A year alone: still a date of birth to a listener; the detector wants a month or a written date.
      () => sayYear(year),
    ])();
  },
  email_address: () => {
    const [first, last] = [
      pick(['jane', 'omar', 'li', 'maria', 'sam']),
      pick(['doe', 'smith', 'mueller', 'chen']),
    ];
    const domain = pick(['example', 'acme', 'mailbox']);
    // Some top-level domains the detector does not list.
    const tld = pick(['com', 'org', 'de', 'com', 'org', 'de', 'xyz', 'shop']);
    return random() < 0.6
      ? `${first} dot ${last} at ${domain} dot ${tld}`
      : `${first}.${last}@${domain}.${tld}`;
  },
};

/** Each template: text before and after the entity; the entity's span is what ENTITY says, minus context words. */
const TEMPLATES = {
  phone_number: [
    ['you can reach me on', 'any time'],
    ['my number is', 'thanks'],
    ['call back on', ''],
  ],
  credit_card_number: [
    ['the card number is', 'and it expires soon'],
    ['please charge', ''],
    ['my visa is', 'ok'],
  ],
  banking_information: [
    ['send it to', 'please'],
    ['my iban is', ''],
    ['the transfer goes to', 'today'],
  ],
  us_social_security_number: [
    ['my', 'and my name is sam'],
    ['for the record my', ''],
    ['his', 'right'],
  ],
  date_of_birth: [
    ['i was born on', 'in ohio'],
    ['my date of birth is', ''],
    ['born', 'so i am old enough'],
  ],
  email_address: [
    ['email me at', 'please'],
    ['my address is', 'thanks'],
    ['write to', ''],
  ],
};
/** Context words inside ENTITY's text that the expected span leaves out. */
const LEADING_CONTEXT = [/^account number /, /^social security number is /, /^the /];

/** Utterances with numbers that are no PII: what precision is measured against. */
const NEGATIVES = [
  'the meeting is at three thirty p m in room four',
  'we sold twenty five hundred units in nineteen ninety nine',
  'about twelve percent of customers said yes',
  'go forward ten meters and turn left',
  'it costs five dollars and fifty cents',
  'the expression goes six times ten equals sixty',
  'chapter two starts on page forty one',
  'there were three hundred people at the event',
  'we met at the station at noon',
  'my birthday party is next week',
  'last year we had forty thousand five hundred visitors',
  'flight two four five leaves from gate twelve',
  'the order ships in three to five days',
];

const utterances = [];
for (const [policy, templates] of Object.entries(TEMPLATES)) {
  for (let index = 0; index < 24; index++) {
    const [before, after] = templates[index % templates.length];
    let entity = ENTITY[policy]();
    let context = '';
    for (const pattern of LEADING_CONTEXT) {
      const match = pattern.exec(entity);
      if (match) {
        context = match[0];
        entity = entity.slice(context.length);
      }
    }
    const head = `${before} ${context}`.trim().split(/\s+/).filter(Boolean);
    const body = entity.split(/\s+/);
    const tail = after.split(/\s+/).filter(Boolean);
    utterances.push({
      id: `${policy}-${String(index + 1).padStart(2, '0')}`,
      text: [...head, ...body, ...tail].join(' '),
      entities: [{ policy, from: head.length, to: head.length + body.length - 1 }],
    });
  }
}
NEGATIVES.forEach((text, index) =>
  utterances.push({ id: `none-${String(index + 1).padStart(2, '0')}`, text, entities: [] }),
);

writeFileSync(
  new URL('../test/fixtures/pii/utterances.json', import.meta.url),
  `${JSON.stringify({ generatedBy: 'scripts/generate-pii-utterances.mjs', wordsAreIndexed: 'from/to are word indices (inclusive) of text split on spaces', utterances }, null, 1)}\n`,
);
console.log(`${utterances.length} utterances`);
