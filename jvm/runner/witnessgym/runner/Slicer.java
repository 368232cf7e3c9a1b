package witnessgym.runner;

import com.sun.source.tree.ArrayAccessTree;
import com.sun.source.tree.ArrayTypeTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.BlockTree;
import com.sun.source.tree.CaseTree;
import com.sun.source.tree.CatchTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.CompoundAssignmentTree;
import com.sun.source.tree.DoWhileLoopTree;
import com.sun.source.tree.EnhancedForLoopTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.ForLoopTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.IfTree;
import com.sun.source.tree.InstanceOfTree;
import com.sun.source.tree.IntersectionTypeTree;
import com.sun.source.tree.LabeledStatementTree;
import com.sun.source.tree.LambdaExpressionTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewArrayTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParameterizedTypeTree;
import com.sun.source.tree.ParenthesizedTree;
import com.sun.source.tree.PrimitiveTypeTree;
import com.sun.source.tree.StatementTree;
import com.sun.source.tree.SwitchTree;
import com.sun.source.tree.SynchronizedTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.TryTree;
import com.sun.source.tree.TypeCastTree;
import com.sun.source.tree.UnaryTree;
import com.sun.source.tree.UnionTypeTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.tree.WhileLoopTree;
import com.sun.source.tree.WildcardTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * The statements of one source file as units for program slicing: for each statement of every
 * method, constructor, initializer block and lambda body, and for each field declaration, the
 * lines it spans, the member it belongs to, and the variables it defines and uses as javac
 * resolved them, so that a local, a parameter and a field of one name stay apart and `x` and
 * `this.x` are one. Only javac's parser and attribution run.
 *
 * <p>Request (Main's `analyse`): {file, classpath: [..], release}. The answer: {kind: 'Analysed',
 * statements, errors} or {kind: 'Failed', reason}.
 */
public final class Slicer {
  private Slicer() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> analyze(Map<String, Object> request) throws IOException {
    Attributed attributed = Attributed.of(request);
    JavacTask task = attributed.task;
    CompilationUnitTree unit = attributed.unit;
    Units units = new Units(task, unit);
    units.collect();

    List<Object> problems = attributed.errors();
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("kind", "Analysed");
    answer.put("errors", problems);
    answer.put("statements", units.json());
    return answer;
  }

  /** The member a unit belongs to: a method, constructor, initializer block or field. */
  private static final class Scope {
    final String kind;
    final String name;
    final String owner;
    final long start;
    final long end;

    Scope(String kind, String name, String owner, long start, long end) {
      this.kind = kind;
      this.name = name;
      this.owner = owner;
      this.start = start;
      this.end = end;
    }

    Map<String, Object> json() {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("kind", kind);
      entry.put("name", name);
      entry.put("owner", owner);
      entry.put("start", start);
      entry.put("end", end);
      return entry;
    }
  }

  private static final class Unit {
    final Scope scope;
    /** Character offset, to list units in source order. */
    final long position;
    final long start;
    final long end;
    final boolean executable;
    final Set<String> defs = new TreeSet<>();
    final Set<String> uses = new TreeSet<>();
    final Set<String> calls = new TreeSet<>();

    Unit(Scope scope, long position, long start, long end, boolean executable) {
      this.scope = scope;
      this.position = position;
      this.start = start;
      this.end = end;
      this.executable = executable;
    }

    Map<String, Object> json() {
      Map<String, Object> entry = new LinkedHashMap<>();
      entry.put("start", start);
      entry.put("end", end);
      entry.put("scope", scope.json());
      entry.put("defs", new ArrayList<>(defs));
      entry.put("uses", new ArrayList<>(uses));
      entry.put("calls", new ArrayList<>(calls));
      entry.put("executable", executable);
      return entry;
    }
  }

  /** Walks the file's classes member by member, statement by statement, making the units. */
  private static final class Units {
    private final Trees trees;
    private final Types types;
    private final Elements elements;
    private final CompilationUnitTree unit;
    private final SourcePositions positions;
    private final LineMap lines;
    /** Each local's key, made where it is declared, so that every use shares it. */
    private final Map<Element, String> localKeys = new HashMap<>();
    private final Map<Tree, Scope> scopes = new IdentityHashMap<>();
    private final List<Unit> units = new ArrayList<>();

    Units(JavacTask task, CompilationUnitTree unit) {
      this.trees = Trees.instance(task);
      this.types = task.getTypes();
      this.elements = task.getElements();
      this.unit = unit;
      this.positions = trees.getSourcePositions();
      this.lines = unit.getLineMap();
    }

    void collect() {
      TreePath root = new TreePath(unit);
      new LocalDeclarations().scan(root, null);
      for (Tree declaration : unit.getTypeDecls()) {
        if (declaration instanceof ClassTree) walkClass(new TreePath(root, declaration));
      }
    }

    List<Object> json() {
      units.sort(Comparator.comparingLong((Unit u) -> u.position));
      List<Object> out = new ArrayList<>();
      for (Unit u : units) out.add(u.json());
      return out;
    }

    private long start(Tree tree) {
      return positions.getStartPosition(unit, tree);
    }

    private long end(Tree tree) {
      return positions.getEndPosition(unit, tree);
    }

    /** Trees javac made up (a default constructor, an implicit super() call) have no end. */
    private boolean written(Tree tree) {
      return tree != null && start(tree) >= 0 && end(tree) >= 0;
    }

    private long line(long position) {
      return lines.getLineNumber(position);
    }

    /** A unit spanning [from, to) in characters; units are listed in source order at the end. */
    private Unit unit(Scope scope, long from, long to, boolean executable) {
      Unit made = new Unit(scope, from, line(from), line(Math.max(from, to - 1)), executable);
      units.add(made);
      return made;
    }

    private static TreePath child(TreePath parent, Tree tree) {
      return new TreePath(parent, tree);
    }


    private void walkClass(TreePath classPath) {
      for (Tree member : ((ClassTree) classPath.getLeaf()).getMembers()) {
        if (!written(member)) continue;
        TreePath memberPath = child(classPath, member);
        if (member instanceof ClassTree) walkClass(memberPath);
        else if (member instanceof MethodTree) walkMethod(memberPath);
        else if (member instanceof BlockTree) walkStatement(memberPath, scopeOf(memberPath));
        else if (member instanceof VariableTree) walkField(memberPath);
      }
    }

    /**
     * A method's signature is a unit of its own that defines the parameters (not executable), so
     * a changed parameter reaches its uses and a use reaches back to it.
     */
    private void walkMethod(TreePath methodPath) {
      MethodTree method = (MethodTree) methodPath.getLeaf();
      BlockTree body = method.getBody();
      if (body == null) return;
      Scope scope = scopeOf(methodPath);
      Unit signature = unit(scope, start(method), start(body) + 1, false);
      for (VariableTree parameter : method.getParameters()) {
        signature.defs.add(declared(child(methodPath, parameter)));
      }
      walkStatement(child(methodPath, body), scope);
    }

    /** A field declaration defines the field, with its initializer or its default value. */
    private void walkField(TreePath fieldPath) {
      VariableTree field = (VariableTree) fieldPath.getLeaf();
      Scope scope = scopeOf(fieldPath);
      Unit declaration = unit(scope, start(field), end(field), field.getInitializer() != null);
      declaration.defs.add(declared(fieldPath));
      if (field.getInitializer() != null) {
        new Symbols(declaration, scope).scan(child(fieldPath, field.getInitializer()), null);
      }
    }

    private Scope scopeOf(TreePath member) {
      return scopes.computeIfAbsent(member.getLeaf(), leaf -> newScope(member));
    }

    private Scope newScope(TreePath member) {
      Tree leaf = member.getLeaf();
      String owner = binaryName(trees.getElement(member.getParentPath()));
      String kind;
      String name;
      if (leaf instanceof MethodTree) {
        Element element = trees.getElement(member);
        if (element instanceof ExecutableElement) {
          kind = element.getKind() == ElementKind.CONSTRUCTOR ? "constructor" : "method";
          name = signature((ExecutableElement) element);
        } else {
          MethodTree method = (MethodTree) leaf;
          kind = method.getName().contentEquals("<init>") ? "constructor" : "method";
          List<String> parameters = new ArrayList<>();
          for (VariableTree parameter : method.getParameters()) {
            parameters.add(parameter.getType().toString());
          }
          name = method.getName() + "(" + String.join(",", parameters) + ")";
        }
      } else if (leaf instanceof BlockTree) {
        kind = "initializer";
        // Named after the code the JVM runs it in.
        name = ((BlockTree) leaf).isStatic() ? "<clinit>" : "<init>";
      } else {
        kind = "field";
        name = ((VariableTree) leaf).getName().toString();
      }
      return new Scope(kind, name, owner, line(start(leaf)), line(end(leaf) - 1));
    }

    /**
     * The member enclosing a tree: lambdas belong to their member, while a nested, local or
     * anonymous class starts members of its own.
     */
    private Scope enclosingScope(TreePath path) {
      for (TreePath at = path; at.getParentPath() != null; at = at.getParentPath()) {
        Tree leaf = at.getLeaf();
        if (at.getParentPath().getLeaf() instanceof ClassTree
            && (leaf instanceof MethodTree
                || leaf instanceof BlockTree
                || leaf instanceof VariableTree)) {
          return scopeOf(at);
        }
        if (leaf instanceof ClassTree) return null;
      }
      return null;
    }

    /** Records every local's key: `local:<member>:<name>@<offset of its declaration>`. */
    private final class LocalDeclarations extends TreePathScanner<Void, Void> {
      @Override
      public Void visitVariable(VariableTree tree, Void unused) {
        Element element = trees.getElement(getCurrentPath());
        if (element != null && isLocal(element)) {
          Scope scope = enclosingScope(getCurrentPath());
          String member = scope == null ? "?" : scope.name;
          localKeys.put(element, "local:" + member + ":" + tree.getName() + "@" + start(tree));
        }
        return super.visitVariable(tree, unused);
      }
    }


    /**
     * A compound statement is a unit for its header only (condition, for header, selector,
     * resources, catch parameter); the statements of its bodies are units of their own.
     */
    private void walkStatement(TreePath path, Scope scope) {
      Tree tree = path.getLeaf();
      if (!written(tree)) return;
      if (tree instanceof ClassTree) {
        walkClass(path);
        return;
      }
      switch (tree.getKind()) {
        case BLOCK:
          for (StatementTree statement : ((BlockTree) tree).getStatements()) {
            walkStatement(child(path, statement), scope);
          }
          return;
        case LABELED_STATEMENT:
          walkStatement(child(path, ((LabeledStatementTree) tree).getStatement()), scope);
          return;
        case EMPTY_STATEMENT:
          return;
        case IF:
          {
            IfTree statement = (IfTree) tree;
            header(path, scope, statement.getCondition());
            walkStatement(child(path, statement.getThenStatement()), scope);
            if (statement.getElseStatement() != null) {
              walkStatement(child(path, statement.getElseStatement()), scope);
            }
            return;
          }
        case WHILE_LOOP:
          {
            WhileLoopTree loop = (WhileLoopTree) tree;
            header(path, scope, loop.getCondition());
            walkStatement(child(path, loop.getStatement()), scope);
            return;
          }
        case DO_WHILE_LOOP:
          {
            DoWhileLoopTree loop = (DoWhileLoopTree) tree;
            walkStatement(child(path, loop.getStatement()), scope);
            ExpressionTree condition = loop.getCondition();
            header(path, scope, start(condition), end(condition), condition);
            return;
          }
        case FOR_LOOP:
          {
            ForLoopTree loop = (ForLoopTree) tree;
            List<Tree> parts = new ArrayList<>(loop.getInitializer());
            if (loop.getCondition() != null) parts.add(loop.getCondition());
            parts.addAll(loop.getUpdate());
            // `for (;;)` has no header code: its unit, on the `for` line, runs nothing.
            long to = start(tree) + 1;
            for (Tree part : parts) to = Math.max(to, end(part));
            header(path, scope, start(tree), to, parts.toArray(new Tree[0]));
            walkStatement(child(path, loop.getStatement()), scope);
            return;
          }
        case ENHANCED_FOR_LOOP:
          {
            EnhancedForLoopTree loop = (EnhancedForLoopTree) tree;
            header(
                path,
                scope,
                start(tree),
                end(loop.getExpression()),
                loop.getVariable(),
                loop.getExpression());
            walkStatement(child(path, loop.getStatement()), scope);
            return;
          }
        case SWITCH:
          {
            SwitchTree statement = (SwitchTree) tree;
            header(path, scope, statement.getExpression());
            for (CaseTree branch : statement.getCases()) {
              TreePath branchPath = child(path, branch);
              if (branch.getCaseKind() == CaseTree.CaseKind.RULE) {
                walkStatement(child(branchPath, branch.getBody()), scope);
              } else {
                for (StatementTree inner : branch.getStatements()) {
                  walkStatement(child(branchPath, inner), scope);
                }
              }
            }
            return;
          }
        case TRY:
          {
            TryTree statement = (TryTree) tree;
            List<? extends Tree> resources = statement.getResources();
            if (!resources.isEmpty()) {
              Tree last = resources.get(resources.size() - 1);
              header(path, scope, start(tree), end(last), resources.toArray(new Tree[0]));
            }
            walkStatement(child(path, statement.getBlock()), scope);
            for (CatchTree handler : statement.getCatches()) {
              TreePath handlerPath = child(path, handler);
              VariableTree parameter = handler.getParameter();
              // javac stores the caught exception on the catch line.
              header(handlerPath, scope, start(handler), end(parameter), parameter);
              walkStatement(child(handlerPath, handler.getBlock()), scope);
            }
            if (statement.getFinallyBlock() != null) {
              walkStatement(child(path, statement.getFinallyBlock()), scope);
            }
            return;
          }
        case SYNCHRONIZED:
          {
            SynchronizedTree statement = (SynchronizedTree) tree;
            header(path, scope, statement.getExpression());
            walkStatement(child(path, statement.getBlock()), scope);
            return;
          }
        case VARIABLE:
          {
            // A declaration without initializer defines the local (its type, its name) but runs
            // no code.
            boolean initialized = ((VariableTree) tree).getInitializer() != null;
            new Symbols(unit(scope, start(tree), end(tree), initialized), scope).scan(path, null);
            return;
          }
        default:
          // Expression statements, return, throw, break, continue, yield, assert, this(..) and
          // super(..) calls.
          new Symbols(unit(scope, start(tree), end(tree), true), scope).scan(path, null);
      }
    }

    /** The header unit of a compound statement from its keyword to `part`, its only part. */
    private void header(TreePath path, Scope scope, ExpressionTree part) {
      header(path, scope, start(path.getLeaf()), end(part), part);
    }

    /** The header unit spanning [from, to), with the symbols of its parts. */
    private void header(TreePath path, Scope scope, long from, long to, Tree... parts) {
      Unit made = unit(scope, from, to, parts.length > 0);
      for (Tree part : parts) new Symbols(made, scope).scan(child(path, part), null);
    }

    private static boolean isLocal(Element element) {
      switch (element.getKind()) {
        case LOCAL_VARIABLE:
        case PARAMETER:
        case EXCEPTION_PARAMETER:
        case RESOURCE_VARIABLE:
        case BINDING_VARIABLE:
          return true;
        default:
          return false;
      }
    }

    private String binaryName(Element element) {
      if (!(element instanceof TypeElement)) return "?";
      TypeElement type = (TypeElement) element;
      String name = elements.getBinaryName(type).toString();
      return name.isEmpty() ? type.getQualifiedName().toString() : name;
    }

    private String fieldKey(Element field) {
      return "field:" + binaryName(field.getEnclosingElement()) + "." + field.getSimpleName();
    }

    private String thisKey(Element type) {
      return "this:" + binaryName(type);
    }

    /** `name(erased parameter types)`, `<init>` for constructors, as the JVM would tell them. */
    private String signature(ExecutableElement method) {
      List<String> parameters = new ArrayList<>();
      for (VariableElement parameter : method.getParameters()) {
        parameters.add(types.erasure(parameter.asType()).toString());
      }
      String name =
          method.getKind() == ElementKind.CONSTRUCTOR
              ? "<init>"
              : method.getSimpleName().toString();
      return name + "(" + String.join(",", parameters) + ")";
    }

    private String callKey(ExecutableElement method) {
      return binaryName(method.getEnclosingElement()) + "#" + signature(method);
    }

    private Element enclosingClass(TreePath path) {
      for (TreePath at = path; at != null; at = at.getParentPath()) {
        if (at.getLeaf() instanceof ClassTree) return trees.getElement(at);
      }
      return null;
    }

    /** The class whose `this` an unqualified call of `method` runs on: the innermost with it. */
    private Element implicitReceiver(TreePath path, ExecutableElement method) {
      TypeMirror declaring = types.erasure(method.getEnclosingElement().asType());
      for (TreePath at = path; at != null; at = at.getParentPath()) {
        if (!(at.getLeaf() instanceof ClassTree)) continue;
        Element type = trees.getElement(at);
        if (type instanceof TypeElement
            && types.isSubtype(types.erasure(type.asType()), declaring)) {
          return type;
        }
      }
      return enclosingClass(path);
    }

    /** The key a declaration defines: a local's, a field's, or its name when unresolved. */
    private String declared(TreePath declaration) {
      Element element = trees.getElement(declaration);
      String name = ((VariableTree) declaration.getLeaf()).getName().toString();
      if (element == null) return "name:" + name;
      if (isLocal(element)) return localKeys.getOrDefault(element, "name:" + name);
      return fieldKey(element);
    }

    private boolean isArrayLength(TreePath path) {
      if (!(path.getLeaf() instanceof MemberSelectTree)) return false;
      MemberSelectTree select = (MemberSelectTree) path.getLeaf();
      if (!select.getIdentifier().contentEquals("length")) return false;
      TypeMirror type = trees.getTypeMirror(child(path, select.getExpression()));
      return type != null && type.getKind() == TypeKind.ARRAY;
    }

    private static TreePath withoutParentheses(TreePath path) {
      TreePath at = path;
      while (at.getLeaf() instanceof ParenthesizedTree) {
        at = child(at, ((ParenthesizedTree) at.getLeaf()).getExpression());
      }
      return at;
    }

    /**
     * The symbol a name or field access denotes: a local, a field, `this` of a class, or
     * `name:<identifier>` when javac could not resolve it; null for names of types, packages and
     * methods, and for an array's length.
     */
    private String valueSymbol(TreePath path) {
      Tree leaf = path.getLeaf();
      String name;
      if (leaf instanceof IdentifierTree) {
        name = ((IdentifierTree) leaf).getName().toString();
        if (name.equals("this") || name.equals("super")) return thisKey(enclosingClass(path));
      } else if (leaf instanceof MemberSelectTree) {
        name = ((MemberSelectTree) leaf).getIdentifier().toString();
        if (name.equals("this")) {
          // `Outer.this`: the outer instance.
          TypeMirror type = trees.getTypeMirror(path);
          return type == null ? null : thisKey(types.asElement(type));
        }
        if (name.equals("super") || name.equals("class") || isArrayLength(path)) return null;
      } else {
        return null;
      }
      Element element = trees.getElement(path);
      // javac resolves a name it cannot find to an erroneous class, whatever the name was meant
      // to be; in a value's place it stands for a variable.
      if (element == null
          || (element instanceof TypeElement && element.asType().getKind() == TypeKind.ERROR)) {
        return "name:" + name;
      }
      if (isLocal(element)) return localKeys.getOrDefault(element, "name:" + name);
      ElementKind kind = element.getKind();
      if (kind == ElementKind.FIELD || kind == ElementKind.ENUM_CONSTANT) return fieldKey(element);
      return null;
    }

    private boolean isForeignField(TreePath path) {
      Element element = trees.getElement(path);
      if (element == null
          || (element.getKind() != ElementKind.FIELD
              && element.getKind() != ElementKind.ENUM_CONSTANT)) {
        return false;
      }
      TreePath declaration = trees.getPath(element);
      return declaration == null || declaration.getCompilationUnit() != unit;
    }

    /** Whether a qualifier names a type or package (an unresolved name may be a variable). */
    private boolean namesTypeOrPackage(TreePath path) {
      Element element = trees.getElement(path);
      return (element instanceof TypeElement && element.asType().getKind() != TypeKind.ERROR)
          || element instanceof PackageElement;
    }

    /** `this`, `super` and `Outer.this` as qualifiers add nothing to the field they select. */
    private static boolean isThisLike(Tree tree) {
      Tree bare = tree;
      while (bare instanceof ParenthesizedTree) bare = ((ParenthesizedTree) bare).getExpression();
      if (bare instanceof IdentifierTree) {
        String name = ((IdentifierTree) bare).getName().toString();
        return name.equals("this") || name.equals("super");
      }
      if (bare instanceof MemberSelectTree) {
        String name = ((MemberSelectTree) bare).getIdentifier().toString();
        return name.equals("this") || name.equals("super");
      }
      return false;
    }

    /**
     * Collects what one unit defines, uses and calls. A block lambda's statements and a class
     * body met on the way become units (and scopes) of their own instead.
     */
    private final class Symbols extends TreePathScanner<Void, Void> {
      private final Unit into;
      private final Scope scope;

      Symbols(Unit into, Scope scope) {
        this.into = into;
        this.scope = scope;
      }

      private TreePath here(Tree tree) {
        return child(getCurrentPath(), tree);
      }

      private void use(String key) {
        if (key != null) into.uses.add(key);
      }

      /** A qualifier is read unless it only names a type, a package, or `this`. */
      private void scanQualifier(ExpressionTree qualifier) {
        if (isThisLike(qualifier) || namesTypeOrPackage(here(qualifier))) return;
        scan(qualifier, null);
      }

      @Override
      public Void visitIdentifier(IdentifierTree tree, Void unused) {
        use(valueSymbol(getCurrentPath()));
        return null;
      }

      @Override
      public Void visitMemberSelect(MemberSelectTree tree, Void unused) {
        if (isArrayLength(getCurrentPath())) return scan(tree.getExpression(), null);
        String key = valueSymbol(getCurrentPath());
        if (key == null) return null;
        use(key);
        scanQualifier(tree.getExpression());
        return null;
      }

      @Override
      public Void visitVariable(VariableTree tree, Void unused) {
        into.defs.add(declared(getCurrentPath()));
        return scan(tree.getInitializer(), null);
      }

      @Override
      public Void visitAssignment(AssignmentTree tree, Void unused) {
        assign(tree.getVariable(), false);
        return scan(tree.getExpression(), null);
      }

      @Override
      public Void visitCompoundAssignment(CompoundAssignmentTree tree, Void unused) {
        assign(tree.getVariable(), true);
        return scan(tree.getExpression(), null);
      }

      @Override
      public Void visitUnary(UnaryTree tree, Void unused) {
        switch (tree.getKind()) {
          case PREFIX_INCREMENT:
          case PREFIX_DECREMENT:
          case POSTFIX_INCREMENT:
          case POSTFIX_DECREMENT:
            assign(tree.getExpression(), true);
            return null;
          default:
            return scan(tree.getExpression(), null);
        }
      }

      /**
       * `x = ..` and `o.f = ..` define x and f (o is read); `a[i] = ..` defines a and reads a and
       * i: the array changed, not the variable.
       */
      private void assign(ExpressionTree target, boolean alsoRead) {
        TreePath bare = withoutParentheses(here(target));
        Tree leaf = bare.getLeaf();
        if (leaf instanceof IdentifierTree
            || (leaf instanceof MemberSelectTree && !isArrayLength(bare))) {
          String key = valueSymbol(bare);
          if (key != null) {
            into.defs.add(key);
            if (alsoRead) into.uses.add(key);
          }
          if (leaf instanceof MemberSelectTree) {
            scanQualifier(((MemberSelectTree) leaf).getExpression());
          }
          return;
        }
        if (leaf instanceof ArrayAccessTree) {
          TreePath base = bare;
          while (base.getLeaf() instanceof ArrayAccessTree) {
            ExpressionTree array = ((ArrayAccessTree) base.getLeaf()).getExpression();
            base = withoutParentheses(child(base, array));
          }
          String key = valueSymbol(base);
          if (key != null) into.defs.add(key);
        }
        scan(target, null);
      }

      /**
       * A call uses its receiver and arguments, and may change the receiver's state: a receiver
       * that is a local, a field of this file or `this` (written or implicit) is defined too.
       * Fields of other files are not: their state is not this file's to follow, and
       * `System.out.println(..)` would otherwise link every print to every other.
       */
      @Override
      public Void visitMethodInvocation(MethodInvocationTree tree, Void unused) {
        Element element = trees.getElement(getCurrentPath());
        ExecutableElement method =
            element instanceof ExecutableElement ? (ExecutableElement) element : null;
        if (method != null) into.calls.add(callKey(method));
        ExpressionTree select = tree.getMethodSelect();
        if (select instanceof MemberSelectTree) {
          ExpressionTree receiver = ((MemberSelectTree) select).getExpression();
          TreePath receiverPath = withoutParentheses(child(here(select), receiver));
          Tree bare = receiverPath.getLeaf();
          String key =
              (bare instanceof IdentifierTree || bare instanceof MemberSelectTree)
                  ? valueSymbol(receiverPath)
                  : null;
          if (key != null) {
            into.uses.add(key);
            if (!isForeignField(receiverPath)) into.defs.add(key);
            if (bare instanceof MemberSelectTree) {
              scanQualifier(((MemberSelectTree) bare).getExpression());
            }
          } else if (!namesTypeOrPackage(receiverPath)) {
            scan(receiver, null);
          }
        } else if (method != null && !method.getModifiers().contains(Modifier.STATIC)) {
          // An unqualified instance call, or this(..) / super(..): it runs on `this`.
          Element owner =
              method.getKind() == ElementKind.CONSTRUCTOR
                  ? enclosingClass(getCurrentPath())
                  : implicitReceiver(getCurrentPath(), method);
          String key = thisKey(owner);
          into.uses.add(key);
          into.defs.add(key);
        }
        for (ExpressionTree argument : tree.getArguments()) scan(argument, null);
        return null;
      }

      @Override
      public Void visitNewClass(NewClassTree tree, Void unused) {
        Element element = trees.getElement(getCurrentPath());
        if (element instanceof ExecutableElement) {
          into.calls.add(callKey((ExecutableElement) element));
        }
        scan(tree.getEnclosingExpression(), null);
        for (ExpressionTree argument : tree.getArguments()) scan(argument, null);
        return scan(tree.getClassBody(), null);
      }

      @Override
      public Void visitClass(ClassTree tree, Void unused) {
        walkClass(getCurrentPath());
        return null;
      }

      /**
       * Lambda parameters are defined by the statement that holds the lambda (it binds them when
       * it runs it); a block body's statements are units of the enclosing member.
       */
      @Override
      public Void visitLambdaExpression(LambdaExpressionTree tree, Void unused) {
        for (VariableTree parameter : tree.getParameters()) {
          into.defs.add(declared(here(parameter)));
        }
        if (tree.getBodyKind() == LambdaExpressionTree.BodyKind.STATEMENT) {
          walkStatement(here(tree.getBody()), scope);
          return null;
        }
        return scan(tree.getBody(), null);
      }

      @Override
      public Void visitMemberReference(MemberReferenceTree tree, Void unused) {
        Element element = trees.getElement(getCurrentPath());
        if (element instanceof ExecutableElement) {
          into.calls.add(callKey((ExecutableElement) element));
        }
        return scan(tree.getQualifierExpression(), null);
      }

      @Override
      public Void visitTypeCast(TypeCastTree tree, Void unused) {
        return scan(tree.getExpression(), null);
      }

      @Override
      public Void visitInstanceOf(InstanceOfTree tree, Void unused) {
        scan(tree.getExpression(), null);
        return scan(tree.getPattern(), null);
      }

      @Override
      public Void visitNewArray(NewArrayTree tree, Void unused) {
        scan(tree.getDimensions(), null);
        return scan(tree.getInitializers(), null);
      }

      // Types and annotations hold no values.

      @Override
      public Void visitAnnotation(com.sun.source.tree.AnnotationTree tree, Void unused) {
        return null;
      }

      @Override
      public Void visitParameterizedType(ParameterizedTypeTree tree, Void unused) {
        return null;
      }

      @Override
      public Void visitArrayType(ArrayTypeTree tree, Void unused) {
        return null;
      }

      @Override
      public Void visitPrimitiveType(PrimitiveTypeTree tree, Void unused) {
        return null;
      }

      @Override
      public Void visitUnionType(UnionTypeTree tree, Void unused) {
        return null;
      }

      @Override
      public Void visitIntersectionType(IntersectionTypeTree tree, Void unused) {
        return null;
      }

      @Override
      public Void visitWildcard(WildcardTree tree, Void unused) {
        return null;
      }
    }
  }
}
