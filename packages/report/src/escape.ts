/** Text made safe for the renderers that interpret it: HTML and Markdown. */

/** Escape text for HTML element content and attribute values (both quote kinds). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

/**
 * Escape text for inline Markdown (including table cells): HTML is neutralised with entities so
 * renderers that allow raw HTML (GitHub does) show it as text; Markdown punctuation is
 * backslash-escaped; newlines collapse so a cell never breaks its table.
 */
export function escapeMarkdown(s: string): string {
  // Code spans (`benchsuite compare`) stay code spans: nothing inside one renders, so it needs no
  // escaping; everything around them is escaped as text.
  return s
    .split(/(`[^`\r\n]+`)/)
    .map((part, i) =>
      i % 2 === 1
        ? part.replace(/\|/g, '\\|') // a pipe would still end a table cell
        : part
            .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))
            .replace(/[\\`*_[\]|~]/g, '\\$&')
            .replace(/\r?\n/g, ' '),
    )
    .join('');
}
