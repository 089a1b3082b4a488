// Names of the files a job's downloads are offered as.

/** A file name from a title: letters, digits and a few marks, never a path. */
export function safeName(title: string, fallback: string): string {
  const name = title
    .normalize('NFKD')
    .replace(/[^\w .-]+/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);
  return name === '' ? fallback : name;
}
