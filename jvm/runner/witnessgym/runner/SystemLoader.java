package witnessgym.runner;

import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The runner JVM's system class loader. Under Surefire the system class loader holds the test
 * class path, and tests rely on it (commons-csv reads its test files with
 * {@code ClassLoader.getSystemClassLoader().getResource(...)}); here it answers from the current
 * request's fresh project loader first, so those tests see the candidate's classes and resources,
 * and otherwise behaves as the JVM's own application loader, including taking the jar of a Java
 * agent loaded at run time (see {@link #appendToClassPathForInstrumentation}).
 */
public final class SystemLoader extends URLClassLoader {
  static {
    registerAsParallelCapable();
  }

  private static volatile ClassLoader current;

  public SystemLoader(ClassLoader parent) {
    super(new URL[0], parent);
  }

  /**
   * Called by the JVM when a Java agent is loaded into the running JVM (byte-buddy-agent's attach,
   * which mockito-inline's mock maker uses): a custom system class loader must define it, or the
   * agent fails to load. As with the application loader, the jar is searched after the class path.
   */
  @SuppressWarnings("unused")
  void appendToClassPathForInstrumentation(String jar) throws MalformedURLException {
    addURL(new File(jar).toURI().toURL());
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
