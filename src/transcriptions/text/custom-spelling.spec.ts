import { joinWords } from '../../engine/pipeline/transcript-assembly';
import { applyCustomSpelling } from './custom-spelling';
import { timedWords } from './text.fixtures';
import { filterProfanity } from './profanity-filter';

describe('applyCustomSpelling', () => {
  it.each([
    [
      'we run cooper netties here',
      [{ from: ['Cooper Netties'], to: 'Kubernetes' }],
      'we run Kubernetes here',
    ],
    ['Acme corp. rocks', [{ from: ['acme corp'], to: 'ACME Corp' }], 'ACME Corp. rocks'],
    [
      'new york city hall',
      [
        { from: ['new york'], to: 'NY' },
        { from: ['new york city'], to: 'NYC' },
      ],
      'NYC hall',
    ],
    ['gruezi and hoi', [{ from: ['gruezi', 'hoi'], to: 'Grüezi' }], 'Grüezi and Grüezi'],
    ['nothing to do', [{ from: ['absent'], to: 'x' }], 'nothing to do'],
  ])('%s', (text, spellings, expected) => {
    expect(joinWords(applyCustomSpelling(timedWords(text), spellings))).toBe(expected);
  });

  it('times a replaced phrase from its first word start to its last word end', () => {
    const [word] = applyCustomSpelling(timedWords('cooper netties'), [
      { from: ['cooper netties'], to: 'Kubernetes' },
    ]);
    expect(word).toMatchObject({ word: 'Kubernetes', start: 0, end: 1.5 });
  });
});

describe('filterProfanity', () => {
  it.each([
    ['what the shit', 'what the s***'],
    ['Fucking hell.', 'F****** hell.'],
    ['a blow job joke', 'a b*** j** joke'],
    ['a class assignment on scunthorpe', 'a class assignment on scunthorpe'],
  ])('%s', (text, expected) => {
    expect(joinWords(filterProfanity(timedWords(text)))).toBe(expected);
  });
});
