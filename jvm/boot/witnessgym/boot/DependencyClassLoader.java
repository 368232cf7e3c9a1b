package witnessgym.boot;

import java.net.URL;
import java.net.URLClassLoader;

/**
 * The loader of a project's dependency jars, kept for the life of the runner: it can tell which
 * of them a request has loaded, so the runner clears a library's leftover state only when a test
 * used the library.
 */
public final class DependencyClassLoader extends URLClassLoader {
  static {
    registerAsParallelCapable();
  }

  public DependencyClassLoader(URL[] urls, ClassLoader parent) {
    super(urls, parent);
  }

  /** The class of that name this loader has loaded, or null (never loads it). */
  public Class<?> loaded(String name) {
    return findLoadedClass(name);
  }
}
