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

/** The lines of a Markdown text outside fenced code blocks, with their 1-based numbers. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const lines = markdown.split('\n');
  const prose: { line: number; text: string }[] = [];
  let fence: string | null = null;
  lines.forEach((text, index) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(text);
    if (fence === null && opening) fence = opening[1];
    else if (fence !== null && text.trim().startsWith(fence)) fence = null;
    else if (fence === null) prose.push({ line: index + 1, text });
  });
  return prose;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, each space a hyphen. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown text's headings, as GitHub makes them (a repeated one gets `-1`, `-2`, …). */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(text);
    if (!heading) continue;
    const slug = headingSlug(heading[1]);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/**
 * The targets of a Markdown text's links and images that stay in the repository (not `http(s):` or `mailto:`),
 * outside fenced code and inline code, with their lines: `path`, `path#anchor` or `#anchor`.
 */
export function relativeLinks(markdown: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = [];
  for (const { line, text } of proseLines(markdown)) {
    const withoutCode = text.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^(?:[a-z]+:|\/\/)/i.test(match[1])) links.push({ line, target: match[1] });
    }
  }
  return links;
}
