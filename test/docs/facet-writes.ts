import ts from 'typescript';

// Every write to a facet (src/devices/facet.ts) in src/, read with the type
// checker, for issue 41's rule "only a facet's owner writes its facet".
//
// A write is a call of Facet's (or FacetStore's) `set` or `delete`, or a
// call of a member of a helper that wraps a facet: a class holding a facet
// in a field of its own (ChargePauses, Escalations), or an object whose
// members close over a facet (the prober's tier store). Such a member writes
// for its caller, so the caller's file writes too; a member that calls
// another of its own class (`this.update`, `super.set`) is one more.
//
// Which facet: the receiver is followed back, through variables, fields,
// the properties of an options object and the parameters of a function
// called in src/, to `registry.facet(KEY)`, and KEY to its
// `facetKey('name', keep)`. A write whose receiver cannot be followed so is
// `unresolved`, and so is any way round it the checker would lose: a write
// method taken without being called, or a facet handed on as a type of
// another `set` or `delete` (or as any).
//
// Not a helper: a DeviceFeature (src/devices/feature.ts, and the Feature
// the factories return, src/features/context.ts) or a feature's DeviceAction
// (src/actions/runner.ts). Their hooks are the feature's own code, run when
// the pipeline or the runner says; those hand them a device or an intent the
// feature decided, and decide nothing they write.

export interface FacetWrite {
  /** Repository path of the file whose code writes, e.g. "src/features/charge/pauses.ts". */
  file: string;
  line: number;
  /** What it calls: "Facet.set", "ChargePauses.forget". */
  call: string;
  /** The facets it writes, by the name their facetKey gives them. */
  facets: string[];
  /** Why its facet cannot be told; then `facets` is empty. */
  unresolved?: string;
}

export interface FacetWrites {
  writes: FacetWrite[];
  /** The registry's own drops of its facet stores as each key's keep says: FacetStore.delete in src/devices/registry.ts. */
  lifecycle: FacetWrite[];
}

class Unresolved extends Error {}

type Call = ts.CallExpression | ts.NewExpression;

const WRITE_METHODS = new Set(['set', 'delete']);

export function facetWrites(program: ts.Program, root: string): FacetWrites {
  const checker = program.getTypeChecker();
  const inSrc = (file: string): boolean => file.startsWith(`${root}src/`);
  const facetFile = `${root}src/devices/facet.ts`;
  const sources = program.getSourceFiles().filter((s) => inSrc(s.fileName));

  // One walk over src/ for every node the tracing below looks up.
  const calls: Call[] = [];
  const accesses: Array<ts.PropertyAccessExpression | ts.ElementAccessExpression> = [];
  const bindings: ts.BindingElement[] = [];
  const flows: ts.Expression[] = [];
  const assignments = new Map<string, ts.BinaryExpression[]>();
  const literalProperties = new Map<string, Array<ts.PropertyAssignment | ts.ShorthandPropertyAssignment>>();
  const push = <T>(map: Map<string, T[]>, key: string, value: T): void => void map.set(key, [...(map.get(key) ?? []), value]);
  for (const source of sources) {
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        calls.push(node);
        flows.push(...(node.arguments ?? []));
      }
      if (ts.isPropertyAccessExpression(node) || ts.isElementAccessExpression(node)) accesses.push(node);
      if (ts.isBindingElement(node)) bindings.push(node);
      if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) {
        const name = nameOf(skipOuter(node.left));
        if (name !== undefined) push(assignments, name, node);
        flows.push(node.right);
      }
      if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && ts.isObjectLiteralExpression(node.parent)) {
        const name = nameOf(node.name);
        if (name !== undefined) push(literalProperties, name, node);
        flows.push(ts.isPropertyAssignment(node) ? node.initializer : node.name);
      }
      if (ts.isReturnStatement(node) && node.expression) flows.push(node.expression);
      if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) flows.push(node.body);
      if ((ts.isVariableDeclaration(node) || ts.isPropertyDeclaration(node)) && node.type && node.initializer) flows.push(node.initializer);
      if (ts.isArrayLiteralExpression(node)) flows.push(...node.elements);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }

  const declarationsOf = (node: ts.Node): ts.Declaration[] => {
    let symbol =
      ts.isIdentifier(node) && ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node
        ? checker.getShorthandAssignmentValueSymbol(node.parent)
        : checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    return symbol?.declarations ?? [];
  };
  const memberNode = (access: ts.Expression): ts.Node | undefined =>
    ts.isPropertyAccessExpression(access) ? access.name : ts.isElementAccessExpression(access) ? access.argumentExpression : undefined;
  /** What a call calls: the declarations of its callee (a constructor's for `new`), and the receiver of a method call. */
  const calleeOf = (call: Call): { declarations: ts.Declaration[]; receiver?: ts.Expression; name: string } => {
    if (ts.isNewExpression(call)) {
      const declaration = checker.getResolvedSignature(call)?.declaration;
      return { declarations: declaration && !ts.isJSDocSignature(declaration) ? [declaration] : [], name: `new ${call.expression.getText()}` };
    }
    const callee = skipOuter(call.expression);
    const member = memberNode(callee);
    if (member && (ts.isPropertyAccessExpression(callee) || ts.isElementAccessExpression(callee)))
      return { declarations: declarationsOf(member), receiver: callee.expression, name: nameOf(member) ?? '' };
    if (callee.kind === ts.SyntaxKind.SuperKeyword) {
      const declaration = checker.getResolvedSignature(call)?.declaration;
      return { declarations: declaration && !ts.isJSDocSignature(declaration) ? [declaration] : [], name: 'super' };
    }
    return { declarations: declarationsOf(callee), name: callee.getText() };
  };

  const declaredIn = (d: ts.Node, file: string, container: string, kinds: Array<(n: ts.Node) => boolean>): boolean =>
    d.getSourceFile().fileName === file && kinds.some((is) => is(d.parent)) && (d.parent as ts.NamedDeclaration).name?.getText() === container;
  const isFacetWrite = (d: ts.Declaration): boolean =>
    (ts.isMethodSignature(d) || ts.isMethodDeclaration(d)) &&
    WRITE_METHODS.has(d.name.getText()) &&
    (declaredIn(d, facetFile, 'Facet', [ts.isInterfaceDeclaration]) || declaredIn(d, facetFile, 'FacetStore', [ts.isClassDeclaration]));
  /**
   * The registry's facet(), or a signature of it that a reader declares to
   * be handed the registry (health's HealthRecords): the facet is the key's.
   */
  const isRegistryFacet = (d: ts.Declaration): boolean =>
    (ts.isMethodDeclaration(d) && d.name.getText() === 'facet' && declaredIn(d, `${root}src/devices/registry.ts`, 'DeviceRegistry', [ts.isClassDeclaration])) ||
    (ts.isMethodSignature(d) &&
      d.name.getText() === 'facet' &&
      d.parameters.length === 1 &&
      isFacetKeyType(checker.getTypeAtLocation(d.parameters[0]!)) &&
      d.type !== undefined &&
      isFacetType(checker.getTypeFromTypeNode(d.type)));
  const isFacetKey = (d: ts.Declaration): boolean => ts.isFunctionDeclaration(d) && d.getSourceFile().fileName === facetFile && d.name?.text === 'facetKey';
  const isTypeOf = (type: ts.Type, names: readonly string[]): boolean =>
    members(type).some((t) =>
      [t.getSymbol(), t.aliasSymbol].some((s) =>
        s?.declarations?.some((d) => d.getSourceFile().fileName === facetFile && names.includes((d as ts.NamedDeclaration).name?.getText() ?? '')),
      ),
    );
  const isFacetType = (type: ts.Type): boolean => isTypeOf(type, ['Facet', 'FacetStore']);
  const isFacetKeyType = (type: ts.Type): boolean => isTypeOf(type, ['FacetKey']);
  const hooks: Record<string, string> = {
    'src/devices/feature.ts': 'DeviceFeature',
    'src/features/context.ts': 'Feature',
    'src/actions/runner.ts': 'DeviceAction',
  };
  const isDeviceFeature = (type: ts.Type | undefined): boolean =>
    [type?.getSymbol(), type?.aliasSymbol].some((s) =>
      s?.declarations?.some((d) => hooks[d.getSourceFile().fileName.slice(root.length)] === (d as ts.NamedDeclaration).name?.getText()),
    );

  // Following a value back to what was put there.
  let callsByTarget: Map<ts.Declaration, Call[]> | undefined;
  const callsTo = (target: ts.Declaration): Call[] => {
    if (!callsByTarget) {
      callsByTarget = new Map();
      for (const call of calls) {
        const declaration = checker.getResolvedSignature(call)?.declaration;
        if (declaration && !ts.isJSDocSignature(declaration)) callsByTarget.set(declaration, [...(callsByTarget.get(declaration) ?? []), call]);
      }
    }
    return callsByTarget.get(target) ?? [];
  };
  const assignedTo = (declaration: ts.Declaration, name: string): ts.Expression[] =>
    (assignments.get(name) ?? []).filter((a) => declarationsOf(memberNode(skipOuter(a.left)) ?? skipOuter(a.left)).includes(declaration)).map((a) => a.right);
  /** Every value the declared variable, field, property or parameter is given in src/. */
  const valuesOf = (declaration: ts.Declaration): ts.Expression[] => {
    const name = nameOf((declaration as ts.NamedDeclaration).name);
    if (name === undefined) throw new Unresolved(`a destructured ${ts.SyntaxKind[declaration.kind]}`);
    if (!inSrc(declaration.getSourceFile().fileName)) throw new Unresolved(`${name}, declared outside src/`);
    const assigned = assignedTo(declaration, name);
    if (ts.isVariableDeclaration(declaration)) {
      if (ts.isForOfStatement(declaration.parent.parent) || ts.isForInStatement(declaration.parent.parent)) throw new Unresolved(`${name}, a loop's variable`);
      return [...(declaration.initializer ? [declaration.initializer] : []), ...assigned];
    }
    if (ts.isPropertyDeclaration(declaration)) return [...(declaration.initializer ? [declaration.initializer] : []), ...assigned];
    if (ts.isPropertyAssignment(declaration)) return [declaration.initializer, ...assigned];
    if (ts.isShorthandPropertyAssignment(declaration)) return [declaration.name, ...assigned];
    if (ts.isPropertySignature(declaration)) {
      // An options object's property: every object literal that the checker types by this property.
      const given = (literalProperties.get(name) ?? []).filter((p) => {
        const type = checker.getContextualType(p.parent);
        return members(type).some((t) => t.getProperty(name)?.declarations?.includes(declaration));
      });
      return [...given.map((p) => (ts.isPropertyAssignment(p) ? p.initializer : p.name)), ...assigned];
    }
    if (ts.isParameter(declaration)) {
      const fn = declaration.parent;
      if (declaration.dotDotDotToken) throw new Unresolved(`${name}, a rest parameter`);
      const index = fn.parameters.indexOf(declaration);
      const targets = [
        fn,
        ...(ts.isVariableDeclaration(fn.parent) || ts.isPropertyAssignment(fn.parent) || ts.isPropertyDeclaration(fn.parent) ? [fn.parent] : []),
      ];
      const args = targets.flatMap(callsTo).flatMap((c) => c.arguments?.[index] ?? declaration.initializer ?? []);
      if (args.length === 0) throw new Unresolved(`${name}, a parameter of a function src/ does not call by name (a callback?)`);
      return [...args, ...assigned];
    }
    if (ts.isGetAccessorDeclaration(declaration)) return returnsOf(declaration);
    throw new Unresolved(`${name}, a ${ts.SyntaxKind[declaration.kind]}`);
  };
  /** Follows an expression back to the calls that made its value, and asks `made` of each. */
  const trace = (expression: ts.Expression, made: (call: ts.CallExpression) => string[] | undefined, seen: Set<ts.Node>): Set<string> => {
    const e = skipOuter(expression);
    if (seen.has(e)) return new Set();
    seen.add(e);
    if (ts.isCallExpression(e)) {
      const found = made(e);
      if (found) return new Set(found);
      const body = calleeOf(e).declarations.filter((d) => inSrc(d.getSourceFile().fileName) && ts.isFunctionLike(d) && 'body' in d && d.body !== undefined);
      if (body.length === 0) throw new Unresolved(`the value of ${e.getText()}`);
      return union(body.flatMap(returnsOf).map((r) => trace(r, made, seen)));
    }
    if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
      const declarations = declarationsOf(memberNode(e) ?? e);
      if (declarations.length === 0) throw new Unresolved(`${e.getText()}, which the checker does not resolve`);
      return union(declarations.filter((d) => !seen.has(d) && seen.add(d)).flatMap((d) => valuesOf(d).map((v) => trace(v, made, seen))));
    }
    if (ts.isConditionalExpression(e)) return union([trace(e.whenTrue, made, seen), trace(e.whenFalse, made, seen)]);
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken) return trace(e.right, made, seen);
    if (ts.isBinaryExpression(e) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind))
      return union([trace(e.left, made, seen), trace(e.right, made, seen)]);
    throw new Unresolved(`${e.getText()}, a ${ts.SyntaxKind[e.kind]}`);
  };
  const keyNames = (key: ts.Expression | undefined): string[] => {
    if (!key) throw new Unresolved('a facet() call without its key');
    return [
      ...trace(
        key,
        (call) => {
          if (!calleeOf(call).declarations.some(isFacetKey)) return undefined;
          const name = call.arguments[0];
          if (!name || !ts.isStringLiteralLike(name)) throw new Unresolved(`a facetKey whose name is not a literal: ${call.getText()}`);
          return [name.text];
        },
        new Set(),
      ),
    ];
  };
  const facetsOf = (receiver: ts.Expression): string[] => {
    const names = trace(receiver, (call) => (calleeOf(call).declarations.some(isRegistryFacet) ? keyNames(call.arguments[0]) : undefined), new Set());
    if (names.size === 0) throw new Unresolved(`${receiver.getText()} is given no facet in src/`);
    return [...names].sort();
  };

  // The helpers: a member writes for its caller when it reaches the facet
  // through its class's own field, or through a variable its object closes over.
  const wrappers = new Map<ts.Declaration, { label: string; facets: Set<string> }>();
  const addWrapper = (member: ts.Declaration, label: string, facets: Iterable<string>): boolean => {
    let grown = false;
    for (const m of [member, ...sameMembers(member)]) {
      const entry = wrappers.get(m) ?? { label, facets: new Set<string>() };
      wrappers.set(m, entry);
      for (const f of facets) {
        if (entry.facets.has(f)) continue;
        entry.facets.add(f);
        grown = true;
      }
    }
    return grown;
  };
  /** The members a call through another type reaches: those of the interfaces and classes the member's class names, or its object's declared type. */
  const sameMembers = (member: ts.Declaration): ts.Declaration[] => {
    const name = nameOf((member as ts.NamedDeclaration).name);
    if (name === undefined) return [];
    if (ts.isClassLike(member.parent))
      return (member.parent.heritageClauses ?? []).flatMap((h) => h.types.flatMap((t) => checker.getTypeAtLocation(t).getProperty(name)?.declarations ?? []));
    if (ts.isObjectLiteralExpression(member.parent)) {
      const type = checker.getContextualType(member.parent);
      return members(type).flatMap((t) => t.getProperty(name)?.declarations ?? []);
    }
    return [];
  };
  const labelOf = (member: ts.Declaration): string => {
    const owner = member.parent;
    const name = nameOf((member as ts.NamedDeclaration).name) ?? 'constructor';
    if (ts.isClassLike(owner)) return `${owner.name?.text ?? 'class'}.${name}`;
    const type = ts.isObjectLiteralExpression(owner) ? checker.getContextualType(owner) : undefined;
    return `${type ? checker.typeToString(type) : 'object'}.${name}`;
  };
  const memberOf = (node: ts.Node, owner: ts.Node): ts.Declaration | undefined =>
    ts.findAncestor(node, (n) => n.parent === owner && (ts.isClassElement(n) || ts.isObjectLiteralElementLike(n))) as ts.Declaration | undefined;
  const classHolds = (cls: ts.ClassLikeDeclaration): boolean =>
    !(cls.heritageClauses ?? []).some((h) => h.types.some((t) => isDeviceFeature(checker.getTypeAtLocation(t))));
  /** The helper member that writes for its caller at this call, if the receiver is its own state. */
  const helperMember = (call: Call, receiver: ts.Expression): ts.Declaration | undefined => {
    const fn = ts.findAncestor(call.parent, ts.isFunctionLike);
    let r = skipOuter(receiver);
    // A local alias of the state (`const facet = this.facet`) is the state.
    for (;;) {
      const local = ts.isIdentifier(r) ? declarationsOf(r)[0] : undefined;
      if (!local || !ts.isVariableDeclaration(local) || !local.initializer || !fn || !isWithin(local, fn)) break;
      r = skipOuter(local.initializer);
    }
    if (ts.isPropertyAccessExpression(r) && r.expression.kind === ts.SyntaxKind.ThisKeyword) {
      const field = declarationsOf(r.name)[0];
      const cls = field && (ts.isParameter(field) ? field.parent.parent : field.parent);
      if (!cls || !ts.isClassLike(cls) || !classHolds(cls)) return undefined;
      return memberOf(call, cls);
    }
    if (ts.isIdentifier(r)) {
      const variable = declarationsOf(r)[0];
      if (!variable || !ts.isVariableDeclaration(variable) || !fn || isWithin(variable, fn)) return undefined;
      const holder = ts.findAncestor(variable, ts.isFunctionLike);
      const literal = ts.findAncestor(call, (n) => n === holder || (ts.isObjectLiteralExpression(n) && !isWithin(variable, n)));
      if (!literal || literal === holder || !ts.isObjectLiteralExpression(literal) || isDeviceFeature(checker.getContextualType(literal))) return undefined;
      return memberOf(call, literal);
    }
    return undefined;
  };

  const writes: FacetWrite[] = [];
  const lifecycle: FacetWrite[] = [];
  const at = (node: ts.Node, call: string, facets: string[], unresolved?: string): FacetWrite => {
    const source = node.getSourceFile();
    return {
      file: source.fileName.slice(root.length),
      line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1,
      call,
      facets,
      ...(unresolved !== undefined && { unresolved }),
    };
  };
  const attempt = (f: () => string[]): { facets: string[]; unresolved?: string } => {
    try {
      return { facets: f() };
    } catch (e) {
      if (e instanceof Unresolved) return { facets: [], unresolved: e.message };
      throw e;
    }
  };

  // The facet's own writes.
  for (const call of calls) {
    const { declarations, receiver, name } = calleeOf(call);
    if (!receiver || !declarations.some(isFacetWrite)) continue;
    const type = checker.getTypeAtLocation(receiver);
    if (call.getSourceFile().fileName === `${root}src/devices/registry.ts` && name === 'delete' && type.getSymbol()?.name === 'FacetStore') {
      lifecycle.push(at(call, `FacetStore.${name}`, []));
      continue;
    }
    const found = attempt(() => facetsOf(receiver));
    writes.push(at(call, `Facet.${name}`, found.facets, found.unresolved));
    const member = helperMember(call, receiver);
    if (member) addWrapper(member, labelOf(member), found.facets);
  }
  // The helpers' members, and the members of theirs that call them on `this` or `super`, until no more.
  const helperCalls = (): Array<{ call: Call; member: { label: string; facets: Set<string> } }> =>
    calls.flatMap((call) => {
      const member = calleeOf(call)
        .declarations.map((d) => wrappers.get(d))
        .find(Boolean);
      return member ? [{ call, member }] : [];
    });
  for (let grown = true; grown;) {
    grown = false;
    for (const { call, member } of helperCalls()) {
      const receiver = calleeOf(call).receiver;
      const self = receiver && [ts.SyntaxKind.ThisKeyword, ts.SyntaxKind.SuperKeyword].includes(skipOuter(receiver).kind);
      const cls = self ? ts.findAncestor(call, ts.isClassLike) : undefined;
      const own = cls && classHolds(cls) ? memberOf(call, cls) : undefined;
      if (own && addWrapper(own, labelOf(own), member.facets)) grown = true;
    }
  }
  for (const { call, member } of helperCalls()) writes.push(at(call, member.label, [...member.facets].sort()));

  // The ways round: a write method taken without a call, a facet handed on as another type.
  const writers = (d: ts.Declaration): string | undefined =>
    isFacetWrite(d) ? `Facet.${nameOf((d as ts.NamedDeclaration).name) ?? ''}` : wrappers.get(d)?.label;
  for (const access of accesses) {
    const member = memberNode(access);
    const label = member && declarationsOf(member).map(writers).find(Boolean);
    const called = (ts.isCallExpression(access.parent) || ts.isNewExpression(access.parent)) && access.parent.expression === access;
    if (label && !called) writes.push(at(access, label, [], `${access.getText()} is taken without being called: its caller cannot be told`));
    if (ts.isElementAccessExpression(access) && !ts.isStringLiteralLike(access.argumentExpression) && isFacetType(checker.getTypeAtLocation(access.expression)))
      writes.push(at(access, 'a facet', [], `${access.getText()} names its member at run time: the checker cannot tell a write`));
  }
  for (const binding of bindings) {
    const name = nameOf(binding.propertyName ?? binding.name);
    const type = checker.getTypeAtLocation(binding.parent);
    const label = name && type.getProperty(name)?.declarations?.map(writers).find(Boolean);
    if (label) writes.push(at(binding, label, [], `${name} is destructured from ${binding.parent.getText()}: its caller cannot be told`));
  }
  /** The type a value is handed on as; undefined where it keeps its own (an untyped variable). */
  const handedAs = (flow: ts.Expression): ts.Type[] | 'untyped' | undefined => {
    const property = flow.parent;
    if (!ts.isPropertyAssignment(property) && !ts.isShorthandPropertyAssignment(property)) {
      const type = checker.getContextualType(flow);
      return type && members(type);
    }
    const name = nameOf(property.name) ?? '';
    const literal = checker.getContextualType(property.parent);
    const types = members(literal).flatMap((t) => {
      const symbol = t.getProperty(name);
      return symbol ? [checker.getTypeOfSymbol(symbol)] : [];
    });
    // An object of no declared type keeps the facet where the checker follows no caller.
    return types.length === 0 ? 'untyped' : types.flatMap(members);
  };
  for (const flow of flows) {
    if (!isFacetType(checker.getTypeAtLocation(flow))) continue;
    const target = handedAs(flow);
    if (target === undefined) continue;
    if (target === 'untyped') {
      writes.push(at(flow, 'a facet', [], `${flow.getText()} is put in an object of no declared type, which the checker cannot follow`));
      continue;
    }
    for (const t of target) {
      if (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.Void | ts.TypeFlags.TypeParameter) || isFacetType(t)) continue;
      const other =
        t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown) || [...WRITE_METHODS].some((m) => t.getProperty(m)?.declarations?.some((d) => !isFacetWrite(d)));
      if (other) writes.push(at(flow, 'a facet', [], `${flow.getText()} is handed on as ${checker.typeToString(t)}, whose writes the checker cannot follow`));
    }
  }
  const order = (a: FacetWrite, b: FacetWrite): number => a.file.localeCompare(b.file) || a.line - b.line;
  return { writes: writes.sort(order), lifecycle: lifecycle.sort(order) };
}

function skipOuter(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e))
    e = e.expression;
  return e;
}

function nameOf(node: ts.Node | undefined): string | undefined {
  if (node === undefined) return undefined;
  if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node) || ts.isStringLiteralLike(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) return node.name.text;
  if (ts.isElementAccessExpression(node)) return nameOf(node.argumentExpression);
  return undefined;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind === ts.SyntaxKind.EqualsToken || kind === ts.SyntaxKind.QuestionQuestionEqualsToken || kind === ts.SyntaxKind.BarBarEqualsToken;
}

function isWithin(node: ts.Node, ancestor: ts.Node): boolean {
  return node.pos >= ancestor.pos && node.end <= ancestor.end && node.getSourceFile() === ancestor.getSourceFile();
}

function returnsOf(fn: ts.Declaration): ts.Expression[] {
  if (ts.isArrowFunction(fn) && !ts.isBlock(fn.body)) return [fn.body];
  const out: ts.Expression[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isReturnStatement(node) && node.expression) out.push(node.expression);
    if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
  };
  const body = (fn as ts.FunctionLikeDeclaration).body;
  if (body) ts.forEachChild(body, visit);
  return out;
}

/** A union's members; any other type alone. */
function members(type: ts.Type | undefined): ts.Type[] {
  return type?.isUnion() ? type.types : type ? [type] : [];
}

function union(sets: Array<Set<string>>): Set<string> {
  return new Set(sets.flatMap((s) => [...s]));
}
