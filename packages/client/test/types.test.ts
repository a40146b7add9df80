import path from 'node:path';
import ts from 'typescript';

const configPath = path.join(__dirname, 'types/tsconfig.json');
const casesPath = path.join(__dirname, 'types/cases.ts');
const DIRECTIVE = '// @ts-expect-error';

/** Type-checks the cases as tsconfig says, the cases file's text passed through `edit`. */
function errorsOf(edit: (text: string) => string): ts.Diagnostic[] {
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configPath));
  const host = ts.createCompilerHost(parsed.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, language, ...rest) =>
    path.resolve(fileName) === casesPath ? ts.createSourceFile(fileName, edit(ts.sys.readFile(fileName)!), language) : getSourceFile(fileName, language, ...rest);
  return [...ts.getPreEmitDiagnostics(ts.createProgram(parsed.fileNames, parsed.options, host))];
}

const lineOf = (d: ts.Diagnostic) => d.file!.getLineAndCharacterOfPosition(d.start!).line;
const show = (d: ts.Diagnostic) => `${d.file ? `${path.basename(d.file.fileName)}:${lineOf(d) + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;

describe('the type cases (test/types/cases.ts)', () => {
  const text = ts.sys.readFile(casesPath)!;
  // The line after each directive (0-based) is a case that must not compile.
  const cases = text.split('\n').flatMap((line, i) => (line.trim().startsWith(DIRECTIVE) ? [i + 1] : []));

  test('when compiled as written, then every case is an expected error and the rest compiles', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
    expect(errorsOf((t) => t).map(show)).toEqual([]);
  }, 120_000);

  test('when the directives are removed, then each case, and nothing else, fails to compile', () => {
    const errors = errorsOf((t) => t.split(DIRECTIVE).join('//'));
    expect(errors.every((d) => d.file && path.resolve(d.file.fileName) === casesPath)).toBe(true);
    expect([...new Set(errors.map(lineOf))].sort((a, b) => a - b)).toEqual(cases);
  }, 120_000);
});
