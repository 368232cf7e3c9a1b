package witnessgym.runner;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.util.JavacTask;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * One source file parsed and attributed by javac for an analysis (SourceModel, Slicer), and the
 * request and answer files they share. Only javac's parser and attribution run: no annotation
 * processing, no code of the project.
 *
 * <p>Request: {file, classpath: [..], release, ..}, sent to a warm runner JVM (Main's `analyse`);
 * an analysis that throws answers {kind: 'Failed', reason}.
 */
final class Attributed {
  final JavacTask task;
  final CompilationUnitTree unit;
  private final DiagnosticCollector<JavaFileObject> diagnostics;

  private Attributed(
      JavacTask task, CompilationUnitTree unit, DiagnosticCollector<JavaFileObject> diagnostics) {
    this.task = task;
    this.unit = unit;
    this.diagnostics = diagnostics;
  }

  interface Analysis {
    Map<String, Object> analyze(Map<String, Object> request) throws IOException;
  }

  /** The file managers of the analysis running, closed when it ends (a warm JVM runs many). */
  private static final List<StandardJavaFileManager> OPEN = new ArrayList<>();

  /** The analysis's answer to the request; {kind: 'Failed', reason} when it throws. */
  static Map<String, Object> answer(Map<String, Object> request, Analysis analysis)
      throws IOException {
    try {
      return analysis.analyze(request);
    } catch (RuntimeException e) {
      Map<String, Object> failed = new LinkedHashMap<>();
      failed.put("kind", "Failed");
      failed.put("reason", e.toString());
      return failed;
    } finally {
      for (StandardJavaFileManager files : OPEN) files.close();
      OPEN.clear();
    }
  }

  /**
   * The request's file, parsed and attributed against its class path at its release level.
   * Attribution goes on past compile errors: what resolves keeps its symbols.
   */
  @SuppressWarnings("unchecked")
  static Attributed of(Map<String, Object> request) throws IOException {
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    StandardJavaFileManager files =
        compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8);
    OPEN.add(files);
    List<String> options = new ArrayList<>();
    options.add("-proc:none");
    options.add("-implicit:none");
    Object release = request.get("release");
    if (release != null) {
      options.add("--release");
      options.add((String) release);
    }
    List<Object> classpath = (List<Object>) request.get("classpath");
    if (!classpath.isEmpty()) {
      options.add("-classpath");
      options.add(String.join(java.io.File.pathSeparator, (List<String>) (List<?>) classpath));
    }
    Path file = Path.of((String) request.get("file"));
    JavacTask task =
        (JavacTask)
            compiler.getTask(
                null, files, diagnostics, options, null, files.getJavaFileObjects(file));
    Iterable<? extends CompilationUnitTree> units = task.parse();
    task.analyze();
    return new Attributed(task, units.iterator().next(), diagnostics);
  }

  /** javac's errors on the file, as the answers report them. */
  List<Object> errors() {
    List<Object> problems = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
      if (diagnostic.getKind() != Diagnostic.Kind.ERROR) continue;
      Map<String, Object> problem = new LinkedHashMap<>();
      problem.put(
          "file", diagnostic.getSource() == null ? null : diagnostic.getSource().getName());
      problem.put("line", diagnostic.getLineNumber());
      problem.put("column", diagnostic.getColumnNumber());
      problem.put("message", diagnostic.getMessage(Locale.ROOT));
      problems.add(problem);
    }
    return problems;
  }
}
