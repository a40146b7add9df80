/**
 * An attachment's filename as RFC 2183 §2.3 has a receiver take it: "the receiving MUA should
 * not respect any directory path information that may seem to be present in the filename
 * parameter. The filename should be treated as a terminal component only." Mail from Windows
 * tools carries `C:\Users\…\report.pdf`, and hostile mail `../../etc/passwd`: an API consumer
 * that saves attachments by name must get `report.pdf` and `passwd`, never a path. Both `/` and
 * `\` separate, as either system writes them; a name that is only a path (`../`, `..`) is no
 * name (null).
 */
export function terminalFilename(name: string): string | null {
  const terminal = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  return terminal.trim() === '' || terminal === '.' || terminal === '..' ? null : terminal;
}
