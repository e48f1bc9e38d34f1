/** A fenced code block of README.md that the README test runs (or lists as skipped). */
export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  kind: 'shell' | 'typescript' | 'javascript';
  code: string;
  /** Why the block is not run: the text of a `<!-- readme-test: skip — reason -->` line right above it. */
  skipReason: string | null;
}

const KINDS: Record<string, ReadmeBlock['kind']> = {
  bash: 'shell',
  sh: 'shell',
  shell: 'shell',
  ts: 'typescript',
  typescript: 'typescript',
  js: 'javascript',
  javascript: 'javascript',
};

const SKIP_MARK = /^<!--\s*readme-test:\s*skip\s*[—–:-]\s*(.+?)\s*-->$/;

/**
 * Every fenced bash/sh/ts/js block of a Markdown text, in order. Blocks of other languages (or none: layout
 * sketches, tables) are not code to run and are left out. A skip mark counts only directly above the fence
 * (blank lines between are allowed).
 */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index++) {
    const opening = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[index]);
    if (!opening) continue;
    const [, , fence, language] = opening;
    let end = index + 1;
    while (end < lines.length && !lines[end].trim().startsWith(fence)) end++;
    const kind = KINDS[language.toLowerCase()];
    if (kind) {
      let above = index - 1;
      while (above >= 0 && lines[above].trim() === '') above--;
      const mark = above >= 0 ? SKIP_MARK.exec(lines[above].trim()) : null;
      blocks.push({
        line: index + 1,
        kind,
        code: lines.slice(index + 1, end).join('\n'),
        skipReason: mark ? mark[1] : null,
      });
    }
    index = end;
  }
  return blocks;
}
