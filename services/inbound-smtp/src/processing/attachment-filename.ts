// C0 controls, DEL and C1 controls (U+0080–U+009F).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
const CONTROL_RUN = /[\u0000-\u001f\u007f-\u009f]+/g;

/**
 * An attachment's filename as RFC 2183 §2.3 has a receiver take it: "the receiving MUA should
 * not respect any directory path information that may seem to be present in the filename
 * parameter. The filename should be treated as a terminal component only." Mail from Windows
 * tools carries `C:\Users\…\report.pdf`, and hostile mail `../../etc/passwd`: an API consumer
 * that saves attachments by name must get `report.pdf` and `passwd`, never a path. Both `/` and
 * `\` separate, as either system writes them; a name that is only a path (`../`, `..`) is no
 * name (null). A run of control characters (an encoded word that decodes to a line feed,
 * `Kontoutskrift\nBedriftskonto.pdf`; a tab, a NUL) is one space: in a name saved to disk or
 * written back into a Content-Disposition header, a line break is a header injection.
 */
export function terminalFilename(written: string): string | null {
  const name = written.replace(CONTROL_RUN, ' ');
  const terminal = name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);
  return terminal.trim() === '' || terminal === '.' || terminal === '..' ? null : terminal;
}
