package witnessgym.runner;

import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The runner JVM's system class loader. Under Surefire the system class loader holds the test
 * class path, and tests rely on it (commons-csv reads its test files with
 * {@code ClassLoader.getSystemClassLoader().getResource(...)}); here it answers from the current
 * request's fresh project loader first, so those tests see the candidate's classes and resources,
 * and otherwise behaves as the JVM's own application loader.
 */
public final class SystemLoader extends ClassLoader {
  static {
    registerAsParallelCapable();
  }

  private static volatile ClassLoader current;

  public SystemLoader(ClassLoader parent) {
    super(parent);
  }

  /** The project loader of the request being run, or null between requests. */
  static void setCurrent(ClassLoader loader) {
    current = loader;
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    ClassLoader project = current;
    if (project != null && !name.startsWith("witnessgym.runner.")) {
      try {
        return project.loadClass(name);
      } catch (ClassNotFoundException notInProject) {
        // fall through to the runner's own class path
      }
    }
    return super.loadClass(name, resolve);
  }

  @Override
  public URL getResource(String name) {
    ClassLoader project = current;
    URL found = project == null ? null : project.getResource(name);
    return found != null ? found : super.getResource(name);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    Set<URL> all = new LinkedHashSet<>();
    ClassLoader project = current;
    if (project != null) all.addAll(Collections.list(project.getResources(name)));
    all.addAll(Collections.list(super.getResources(name)));
    return Collections.enumeration(all);
  }
}
