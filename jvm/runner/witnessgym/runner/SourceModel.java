package witnessgym.runner;

import com.sun.source.tree.ArrayTypeTree;
import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.IntersectionTypeTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParameterizedTypeTree;
import com.sun.source.tree.PrimitiveTypeTree;
import com.sun.source.tree.ThrowTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.UnionTypeTree;
import com.sun.source.tree.VariableTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.TypeParameterElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.TypeVariable;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * The compiler's view of one source file, for rewrites that must be type-correct: every type,
 * method and local declared in it, and the type of every expression in the requested ranges,
 * written as the file itself could spell it (simple names where the file's imports allow). Only
 * javac's parser and attribution run: no annotation processing, no code of the project.
 *
 * <p>Request (Main's `analyse`): {file, classpath: [..], release, ranges: [[start, end], ..]}.
 */
public final class SourceModel {
  private SourceModel() {}

  @SuppressWarnings("unchecked")
  static Map<String, Object> analyze(Map<String, Object> request) throws IOException {
    Attributed attributed = Attributed.of(request);
    JavacTask task = attributed.task;
    CompilationUnitTree unit = attributed.unit;
    List<long[]> ranges = new ArrayList<>();
    for (Object range : (List<Object>) request.get("ranges")) {
      List<Object> bounds = (List<Object>) range;
      ranges.add(new long[] {toLong(bounds.get(0)), toLong(bounds.get(1))});
    }
    Collector collector = new Collector(task, unit, ranges);
    collector.scan(unit, null);

    List<Object> problems = attributed.errors();
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("kind", "Analysed");
    answer.put("errors", problems);
    answer.put("types", collector.types);
    answer.put("methods", collector.methods);
    answer.put("locals", collector.locals);
    answer.put("expressions", collector.expressions);
    answer.put("throwStatements", collector.throwStatements);
    return answer;
  }

  private static long toLong(Object number) {
    return ((Number) number).longValue();
  }

  /** Walks the file, recording declarations everywhere and expressions inside the ranges. */
  private static final class Collector extends TreePathScanner<Void, Void> {
    final List<Object> types = new ArrayList<>();
    final List<Object> methods = new ArrayList<>();
    final List<Object> locals = new ArrayList<>();
    final List<Object> expressions = new ArrayList<>();
    final List<Object> throwStatements = new ArrayList<>();
    private final Trees trees;
    private final Types typeUtils;
    private final Elements elements;
    private final CompilationUnitTree unit;
    private final SourcePositions positions;
    private final LineMap lines;
    private final List<long[]> ranges;
    private final Spelling spelling;

    Collector(JavacTask task, CompilationUnitTree unit, List<long[]> ranges) {
      this.trees = Trees.instance(task);
      this.typeUtils = task.getTypes();
      this.elements = task.getElements();
      this.unit = unit;
      this.positions = trees.getSourcePositions();
      this.lines = unit.getLineMap();
      this.ranges = ranges;
      this.spelling = new Spelling(unit);
    }

    private long start(Tree tree) {
      return positions.getStartPosition(unit, tree);
    }

    private long end(Tree tree) {
      return positions.getEndPosition(unit, tree);
    }

    private Map<String, Object> located(Tree tree) {
      Map<String, Object> entry = new LinkedHashMap<>();
      long start = start(tree);
      entry.put("start", start);
      entry.put("end", end(tree));
      entry.put("line", start < 0 ? -1 : lines.getLineNumber(start));
      return entry;
    }

    /** Trees javac made up (a default constructor and its super() call) have no end. */
    private boolean written(Tree tree) {
      return start(tree) >= 0 && end(tree) >= 0;
    }

    private boolean inRanges(Tree tree) {
      long start = start(tree);
      long end = end(tree);
      for (long[] range : ranges) if (start >= range[0] && end <= range[1]) return true;
      return false;
    }

    private String enclosingType() {
      for (TreePath path = getCurrentPath(); path != null; path = path.getParentPath()) {
        if (path.getLeaf() instanceof ClassTree) {
          Element element = trees.getElement(path);
          if (element instanceof TypeElement) {
            return ((TypeElement) element).getQualifiedName().toString();
          }
        }
      }
      return null;
    }

    private String enclosingMethod() {
      for (TreePath path = getCurrentPath(); path != null; path = path.getParentPath()) {
        if (path.getLeaf() instanceof MethodTree) return methodKey((MethodTree) path.getLeaf());
      }
      return null;
    }

    private String methodKey(MethodTree method) {
      Element element = trees.getElement(new TreePath(getCurrentPath(), method));
      StringBuilder key =
          new StringBuilder(
              element != null && element.getKind() == ElementKind.CONSTRUCTOR
                  ? element.getEnclosingElement().getSimpleName().toString()
                  : method.getName().toString());
      key.append('(');
      boolean first = true;
      for (VariableTree parameter : method.getParameters()) {
        if (!first) key.append(',');
        first = false;
        key.append(parameter.getType().toString());
      }
      return key.append(')').toString();
    }

    @Override
    public Void visitClass(ClassTree tree, Void unused) {
      Element element = trees.getElement(getCurrentPath());
      if (element instanceof TypeElement) {
        TypeElement type = (TypeElement) element;
        Map<String, Object> entry = located(tree);
        entry.put("name", type.getSimpleName().toString());
        entry.put("qualifiedName", type.getQualifiedName().toString());
        entry.put("kind", type.getKind().toString().toLowerCase(Locale.ROOT));
        entry.put("modifiers", modifiers(type.getModifiers()));
        entry.put("nesting", type.getNestingKind().toString().toLowerCase(Locale.ROOT));
        entry.put("typeParameters", typeParameters(type.getTypeParameters()));
        List<Object> members = new ArrayList<>();
        for (Element member : type.getEnclosedElements()) {
          Map<String, Object> named = new LinkedHashMap<>();
          named.put("name", member.getSimpleName().toString());
          named.put("kind", member.getKind().toString().toLowerCase(Locale.ROOT));
          members.add(named);
        }
        entry.put("members", members);
        types.add(entry);
      }
      return super.visitClass(tree, unused);
    }

    @Override
    public Void visitMethod(MethodTree tree, Void unused) {
      Element element = trees.getElement(getCurrentPath());
      if (element instanceof ExecutableElement && written(tree)) {
        ExecutableElement method = (ExecutableElement) element;
        Map<String, Object> entry = located(tree);
        entry.put("key", methodKey(tree));
        entry.put("name", method.getSimpleName().toString());
        entry.put("declaringType", enclosingType());
        entry.put("constructor", method.getKind() == ElementKind.CONSTRUCTOR);
        entry.put("modifiers", modifiers(method.getModifiers()));
        entry.put("typeParameters", typeParameters(method.getTypeParameters()));
        entry.put("returnType", spelling.of(method.getReturnType()));
        List<Object> parameters = new ArrayList<>();
        for (VariableTree parameter : tree.getParameters()) {
          Element variable = trees.getElement(new TreePath(getCurrentPath(), parameter));
          Map<String, Object> named = new LinkedHashMap<>();
          named.put("name", parameter.getName().toString());
          named.put("type", variable == null ? null : spelling.of(variable.asType()));
          parameters.add(named);
        }
        entry.put("parameters", parameters);
        List<Object> thrown = new ArrayList<>();
        for (TypeMirror type : method.getThrownTypes()) thrown.add(spelling.of(type));
        entry.put("thrown", thrown);
        if (tree.getBody() != null) {
          entry.put("bodyStart", start(tree.getBody()));
          entry.put("bodyEnd", end(tree.getBody()));
        }
        methods.add(entry);
      }
      return super.visitMethod(tree, unused);
    }

    @Override
    public Void visitVariable(VariableTree tree, Void unused) {
      Element element = trees.getElement(getCurrentPath());
      if (element != null
          && (element.getKind() == ElementKind.LOCAL_VARIABLE
              || element.getKind() == ElementKind.RESOURCE_VARIABLE
              || element.getKind() == ElementKind.EXCEPTION_PARAMETER)) {
        Map<String, Object> entry = located(tree);
        entry.put("name", tree.getName().toString());
        entry.put("type", spelling.of(element.asType()));
        entry.put("final", element.getModifiers().contains(Modifier.FINAL));
        entry.put("method", enclosingMethod());
        locals.add(entry);
      }
      return super.visitVariable(tree, unused);
    }

    @Override
    public Void scan(Tree tree, Void unused) {
      if (tree instanceof ExpressionTree && !isTypeTree(tree) && written(tree) && inRanges(tree)) {
        TreePath path = new TreePath(getCurrentPath(), tree);
        TypeMirror type = trees.getTypeMirror(path);
        // Names that are packages or types (the `java.util` of `java.util.List`) have no value.
        Element element = trees.getElement(path);
        boolean value =
            type != null
                && type.getKind() != TypeKind.PACKAGE
                && type.getKind() != TypeKind.ERROR
                && !(element instanceof PackageElement)
                && !(element instanceof TypeElement && !(tree instanceof MethodInvocationTree))
                // The name part of a call (`list.add` in `list.add(x)`) is not a value.
                && !(element instanceof ExecutableElement
                    && (tree instanceof IdentifierTree || tree instanceof MemberSelectTree))
                && type.getKind() != TypeKind.NONE;
        if (value) {
          Map<String, Object> entry = located(tree);
          entry.put("node", tree.getKind().toString().toLowerCase(Locale.ROOT));
          entry.put("type", spelling.of(type));
          if (tree instanceof MethodInvocationTree) {
            Element target = trees.getElement(path);
            if (target instanceof ExecutableElement) entry.put("calls", callee(target));
          }
          if (tree instanceof MethodInvocationTree || tree instanceof NewClassTree) {
            Element target = trees.getElement(path);
            if (target instanceof ExecutableElement) {
              entry.put("checkedThrows", checked(((ExecutableElement) target).getThrownTypes()));
            }
          }
          expressions.add(entry);
        }
      }
      return super.scan(tree, unused);
    }

    /** The checked exceptions among `thrown`, as the file spells them. */
    private List<Object> checked(List<? extends TypeMirror> thrown) {
      List<Object> names = new ArrayList<>();
      for (TypeMirror type : thrown) if (isChecked(type)) names.add(spelling.of(type));
      return names;
    }

    private boolean isChecked(TypeMirror type) {
      TypeMirror runtime = elements.getTypeElement("java.lang.RuntimeException").asType();
      TypeMirror error = elements.getTypeElement("java.lang.Error").asType();
      return !typeUtils.isSubtype(type, runtime) && !typeUtils.isSubtype(type, error);
    }

    @Override
    public Void visitThrow(ThrowTree tree, Void unused) {
      if (inRanges(tree)) {
        TypeMirror type = trees.getTypeMirror(new TreePath(getCurrentPath(), tree.getExpression()));
        if (type != null && type.getKind() == TypeKind.DECLARED) {
          Map<String, Object> entry = located(tree);
          entry.put("type", spelling.of(type));
          entry.put("checked", isChecked(type));
          throwStatements.add(entry);
        }
      }
      return super.visitThrow(tree, unused);
    }

    private boolean isTypeTree(Tree tree) {
      return tree instanceof PrimitiveTypeTree
          || tree instanceof ArrayTypeTree
          || tree instanceof ParameterizedTypeTree
          || tree instanceof UnionTypeTree
          || tree instanceof IntersectionTypeTree;
    }

    private Map<String, Object> callee(Element target) {
      Map<String, Object> callee = new LinkedHashMap<>();
      TypeElement owner = (TypeElement) target.getEnclosingElement();
      callee.put("declaringType", owner.getQualifiedName().toString());
      callee.put("name", target.getSimpleName().toString());
      callee.put("modifiers", modifiers(target.getModifiers()));
      // A call into this file can be rerouted or wrapped here; others only at the call site.
      TreePath declaration = trees.getPath(target);
      boolean inThisFile = declaration != null && declaration.getCompilationUnit() == unit;
      callee.put("inThisFile", inThisFile);
      // Where the callee is declared, so that an overload is told apart by more than its arity.
      if (inThisFile) callee.put("declaredAt", start(declaration.getLeaf()));
      return callee;
    }

    private List<Object> modifiers(Set<Modifier> set) {
      List<Object> names = new ArrayList<>();
      for (Modifier modifier : set) names.add(modifier.toString());
      return names;
    }

    private List<Object> typeParameters(List<? extends TypeParameterElement> parameters) {
      List<Object> names = new ArrayList<>();
      for (TypeParameterElement parameter : parameters) names.add(parameter.getSimpleName().toString());
      return names;
    }
  }

  /**
   * Writes a type as this file can spell it: a simple name when the file's package, imports,
   * java.lang or an enclosing type make it mean that type, else its qualified name. Types no
   * source can spell (captures, intersections, anonymous and local classes, null) come out as
   * null, so a rewrite that would need them is refused rather than guessed.
   */
  private static final class Spelling {
    private final String packageName;
    private final Set<String> singleImports = new HashSet<>();
    private final Set<String> simpleImported = new HashSet<>();
    private final Set<String> onDemandImports = new HashSet<>();
    /** The file's one top-level type, whose body every use in the file is in; else null. */
    private final String soleTopLevel;

    Spelling(CompilationUnitTree unit) {
      packageName = unit.getPackageName() == null ? "" : unit.getPackageName().toString();
      List<String> topLevel = new ArrayList<>();
      for (Tree declaration : unit.getTypeDecls()) {
        if (declaration instanceof ClassTree) {
          String simple = ((ClassTree) declaration).getSimpleName().toString();
          topLevel.add(packageName.isEmpty() ? simple : packageName + "." + simple);
        }
      }
      soleTopLevel = topLevel.size() == 1 ? topLevel.get(0) : null;
      for (ImportTree imported : unit.getImports()) {
        if (imported.isStatic()) continue;
        String name = imported.getQualifiedIdentifier().toString();
        if (name.endsWith(".*")) onDemandImports.add(name.substring(0, name.length() - 2));
        else {
          singleImports.add(name);
          simpleImported.add(name.substring(name.lastIndexOf('.') + 1));
        }
      }
    }

    String of(TypeMirror type) {
      switch (type.getKind()) {
        case BOOLEAN:
        case BYTE:
        case SHORT:
        case INT:
        case LONG:
        case CHAR:
        case FLOAT:
        case DOUBLE:
        case VOID:
          return type.toString();
        case ARRAY:
          String component = of(((ArrayType) type).getComponentType());
          return component == null ? null : component + "[]";
        case TYPEVAR:
          TypeVariable variable = (TypeVariable) type;
          // A captured wildcard shows up as a type variable with a synthetic name.
          return variable.toString().startsWith("capture#")
              ? null
              : variable.asElement().getSimpleName().toString();
        case WILDCARD:
          WildcardType wildcard = (WildcardType) type;
          if (wildcard.getExtendsBound() != null) {
            String bound = of(wildcard.getExtendsBound());
            return bound == null ? null : "? extends " + bound;
          }
          if (wildcard.getSuperBound() != null) {
            String bound = of(wildcard.getSuperBound());
            return bound == null ? null : "? super " + bound;
          }
          return "?";
        case DECLARED:
          return declared((DeclaredType) type);
        default:
          return null;
      }
    }

    private String declared(DeclaredType type) {
      TypeElement element = (TypeElement) type.asElement();
      if (element.getNestingKind() == NestingKind.LOCAL
          || element.getNestingKind() == NestingKind.ANONYMOUS) {
        return null;
      }
      StringBuilder name = new StringBuilder(nameOf(element));
      if (!type.getTypeArguments().isEmpty()) {
        name.append('<');
        boolean first = true;
        for (TypeMirror argument : type.getTypeArguments()) {
          String spelled = of(argument);
          if (spelled == null) return null;
          if (!first) name.append(", ");
          first = false;
          name.append(spelled);
        }
        name.append('>');
      }
      return name.toString();
    }

    /**
     * `Outer.Inner` for nested types, starting from the outermost type the file can name; a member
     * type of the file's own top-level type by its simple name, as its members are in scope in
     * the whole of its body.
     */
    private String nameOf(TypeElement element) {
      Element enclosing = element.getEnclosingElement();
      if (enclosing instanceof TypeElement) {
        String qualified = element.getQualifiedName().toString();
        if (singleImports.contains(qualified)) return element.getSimpleName().toString();
        String simple = element.getSimpleName().toString();
        if (((TypeElement) enclosing).getQualifiedName().toString().equals(soleTopLevel)
            && !simpleImported.contains(simple)) {
          return simple;
        }
        return nameOf((TypeElement) enclosing) + "." + element.getSimpleName();
      }
      String qualified = element.getQualifiedName().toString();
      String simple = element.getSimpleName().toString();
      String pkg = enclosing instanceof PackageElement
          ? ((PackageElement) enclosing).getQualifiedName().toString()
          : "";
      if (singleImports.contains(qualified)) return simple;
      // An on-demand or implicit import loses to a single-type import of the same simple name.
      if (simpleImported.contains(simple)) return qualified;
      if (pkg.equals(packageName) || pkg.equals("java.lang") || onDemandImports.contains(pkg)) {
        return simple;
      }
      return qualified;
    }
  }
}
