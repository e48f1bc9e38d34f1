import { readmeBlocks } from './readme-blocks';

describe('readmeBlocks', () => {
  it('finds bash/sh/ts/js blocks with their line and leaves other fences out', () => {
    const markdown = [
      '# Title', //                 1
      '```bash', //                 2
      'curl http://x', //           3
      '```', //                     4
      '```', //                     5 no language: a layout sketch
      'src/', //                    6
      '```', //                     7
      '```ts', //                   8
      'const a = 1;', //            9
      '', //                        10
      'console.log(a);', //         11
      '```', //                     12
      '```yaml', //                 13
      'a: 1', //                    14
      '```', //                     15
      '```js', //                   16
      'x()', //                     17
      '```', //                     18
    ].join('\n');
    expect(readmeBlocks(markdown)).toEqual([
      { line: 2, kind: 'shell', code: 'curl http://x', skipReason: null },
      { line: 8, kind: 'typescript', code: 'const a = 1;\n\nconsole.log(a);', skipReason: null },
      { line: 16, kind: 'javascript', code: 'x()', skipReason: null },
    ]);
  });

  it('reads the skip mark (em dash, en dash, hyphen or colon) directly above a fence only', () => {
    const markdown = [
      '<!-- readme-test: skip — needs Docker -->',
      '```bash',
      'docker compose up',
      '```',
      'Text between.',
      '<!-- readme-test: skip - a model download -->',
      '',
      '```sh',
      'node dist/cli.js models:pull base',
      '```',
      '<!-- readme-test: skip: remote URL -->',
      'A paragraph: the mark is not directly above the next fence.',
      '```bash',
      'curl https://example.org',
      '```',
    ].join('\n');
    expect(readmeBlocks(markdown).map((block) => [block.line, block.skipReason])).toEqual([
      [2, 'needs Docker'],
      [8, 'a model download'],
      [13, null],
    ]);
  });

  it('a fence inside a longer fence is content, not a block', () => {
    const markdown = ['````markdown', '```bash', 'echo no', '```', '````', '```sh', 'echo yes', '```'].join(
      '\n',
    );
    expect(readmeBlocks(markdown)).toEqual([{ line: 6, kind: 'shell', code: 'echo yes', skipReason: null }]);
  });
});
