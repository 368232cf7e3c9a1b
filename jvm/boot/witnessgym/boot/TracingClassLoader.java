package witnessgym.boot;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A fresh per-request loader that instruments production classes (from the overlay or the
 * project's main output) as it defines them; test classes and dependencies load unchanged.
 */
public final class TracingClassLoader extends ProjectClassLoader {
  static {
    registerAsParallelCapable();
  }

  /**
   * Instrumented bytes by class file and its modification time: every request loads the classes
   * afresh, but a class file that did not change is instrumented only once per runner.
   */
  private static final Map<String, byte[]> INSTRUMENTED = new ConcurrentHashMap<>();

  private final File overlay;
  private final File classes;
  private final Instrumenter.MethodTable table;

  public TracingClassLoader(
      URL[] urls, ClassLoader parent, File overlay, File classes, Instrumenter.MethodTable table) {
    super(urls, parent);
    this.overlay = overlay;
    this.classes = classes;
    this.table = table;
  }

  private byte[] instrumented(File file) throws IOException {
    String key = file.getPath() + '@' + file.lastModified() + '@' + file.length();
    byte[] cached = INSTRUMENTED.get(key);
    if (cached != null) return cached;
    byte[] bytes = Instrumenter.instrument(Files.readAllBytes(file.toPath()), table);
    INSTRUMENTED.put(key, bytes);
    return bytes;
  }

  @Override
  protected Class<?> findClass(String name) throws ClassNotFoundException {
    String path = name.replace('.', '/') + ".class";
    File production = new File(classes, path);
    // Only production classes are traced; a changed one is read from the overlay.
    if (!production.isFile()) return super.findClass(name);
    File changed = new File(overlay, path);
    File file = changed.isFile() ? changed : production;
    byte[] bytes;
    try {
      bytes = instrumented(file);
    } catch (IOException e) {
      throw new ClassNotFoundException(name, e);
    }
    int dot = name.lastIndexOf('.');
    if (dot > 0) {
      String pkg = name.substring(0, dot);
      if (getDefinedPackage(pkg) == null) {
        try {
          definePackage(pkg, null, null, null, null, null, null, null);
        } catch (IllegalArgumentException raced) {
          // defined meanwhile by another thread
        }
      }
    }
    // The class keeps the code source of the directory it came from, so it gets the same
    // protection domain (and resource permissions) as an uninstrumented class would.
    File root = file == changed ? overlay : classes;
    URL location;
    try {
      location = root.toURI().toURL();
    } catch (java.net.MalformedURLException e) {
      throw new ClassNotFoundException(name, e);
    }
    return defineClass(
        name, bytes, 0, bytes.length, new CodeSource(location, (CodeSigner[]) null));
  }
}
