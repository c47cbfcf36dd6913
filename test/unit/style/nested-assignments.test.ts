// The house rule Biome has no rule for: state that lives across steps sits in a named object, so no nested function
// in lib/ reassigns a variable of a function around it (Lucene's scorers keep theirs in fields; STYLE.md).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const isFunction = (node: ts.Node): node is ts.SignatureDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isAccessor(node);

const isAssignment = (kind: ts.SyntaxKind) =>
  kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;

/** The target a node assigns to, if it assigns to a plain name (`x = …`, `x += …`, `x++`). */
function assignedName(node: ts.Node): ts.Identifier | undefined {
  if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind) && ts.isIdentifier(node.left))
    return node.left;
  const counts = ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node);
  if (counts && [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(node.operator))
    return ts.isIdentifier(node.operand) ? node.operand : undefined;
  return undefined;
}

/** `file:line name` for each assignment inside a function to a name declared by a function around it. */
function nestedAssignments(file: string, source: string): string[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node, scopes: Set<string>[]) => {
    const inner = isFunction(node) ? [...scopes, new Set<string>()] : scopes;
    if (isFunction(node))
      for (const parameter of node.parameters)
        if (ts.isIdentifier(parameter.name)) inner.at(-1)?.add(parameter.name.text);
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name)) inner.at(-1)?.add(node.name.text);
    const target = assignedName(node);
    if (target) {
      const owner = inner.findLastIndex((scope) => scope.has(target.text));
      if (owner >= 0 && owner < inner.length - 1)
        found.push(
          `${file}:${tree.getLineAndCharacterOfPosition(target.getStart()).line + 1} ${target.text}`,
        );
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(tree, []);
  return found;
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? files(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );

describe('lib/ state across steps', () => {
  it('finds a nested function that reassigns its parent’s variable, and leaves an object’s field alone', () => {
    const source = [
      'function outer() {',
      '  let count = 0;',
      '  const state = { count: 0 };',
      '  const bump = () => { count++; state.count++; };',
      '  const own = () => { let mine = 0; mine += 1; return mine; };',
      '  count = 2;',
      '  return [bump, own];',
      '}',
    ].join('\n');
    expect(nestedAssignments('x.ts', source)).toStrictEqual(['x.ts:4 count']);
  });

  it('has no nested function in lib/ that reassigns a variable of a function around it', () => {
    const offenders = files('lib').flatMap((file) => nestedAssignments(file, readFileSync(file, 'utf8')));
    expect(offenders).toStrictEqual([]);
  });
});
