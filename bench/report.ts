// Results as Markdown: printed as each section finishes, and written whole to bench/RESULTS.md.

export interface Section {
  title: string;
  /** Lines under the title: what was measured and how to read it. */
  notes: string[];
  headers: string[];
  rows: string[][];
  /** Anything verbatim (a sub-bench's own output). */
  raw?: string;
  /** Its headline numbers for the summary table: [measure, value]. */
  summary?: string[][];
}

export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(headers), rule, ...rows.map(line)].join('\n');
}

export function renderSection(s: Section): string {
  const parts = [`## ${s.title}`, ''];
  if (s.notes.length > 0) parts.push(...s.notes, '');
  if (s.rows.length > 0) parts.push(table(s.headers, s.rows), '');
  if (s.raw) parts.push('```', s.raw.trimEnd(), '```', '');
  return parts.join('\n');
}
