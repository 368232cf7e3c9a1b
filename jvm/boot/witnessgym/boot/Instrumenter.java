package witnessgym.boot;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * Adds {@code Trace.hit(id)} at the entry of every production method that has a body in source:
 * methods, constructors (before the explicit this()/super() call, which the verifier allows for
 * a static call that does not touch {@code this}), static initialisers, interface default and
 * static methods, methods of nested, local, anonymous and enum-constant classes. Compiler-made
 * methods (lambda bodies, bridges, accessors, an enum's values()/valueOf()) are left alone: a
 * lambda's enclosing method has already been recorded when the lambda was created.
 */
public final class Instrumenter {
  private static final String TRACE = "witnessgym/trace/Trace";

  /**
   * Method ids, stable for the life of the runner so reloaded classes keep their ids. A table
   * made {@code withLines} also gives each line of a method an id of its own, hit when the line
   * starts: a line that ran is then known even when an exception ended the method before any
   * later line, which line coverage cannot show (JaCoCo marks a line only once a probe after it
   * runs).
   */
  public static final class MethodTable {
    private final Map<String, Integer> ids = new HashMap<>();
    private final List<Map<String, Object>> entries = new ArrayList<>();
    final boolean withLines;

    public MethodTable() {
      this(false);
    }

    public MethodTable(boolean withLines) {
      this.withLines = withLines;
    }

    public synchronized int register(String owner, String name, String descriptor, String source) {
      return register(owner + '.' + name + descriptor, owner, name, descriptor, source, null);
    }

    /** The id of one line of a method: an entry like the method's, with that line. */
    synchronized int registerLine(
        String owner, String name, String descriptor, String source, int line) {
      return register(
          owner + '.' + name + descriptor + ':' + line, owner, name, descriptor, source, line);
    }

    private int register(
        String key, String owner, String name, String descriptor, String source, Integer line) {
      Integer id = ids.get(key);
      if (id != null) return id;
      Map<String, Object> entry = new HashMap<>();
      entry.put("owner", owner);
      entry.put("name", name);
      entry.put("descriptor", descriptor);
      entry.put("source", source);
      entry.put("line", line);
      entries.add(entry);
      ids.put(key, entries.size() - 1);
      return entries.size() - 1;
    }

    /**
     * Keeps the first line in code order, not the smallest: a constructor's code starts at its
     * this()/super() call, while inlined field and instance initialisers carry earlier lines.
     */
    synchronized void noteLine(int id, int line) {
      Map<String, Object> entry = entries.get(id);
      if (entry.get("line") == null) entry.put("line", line);
    }

    public synchronized Map<String, Object> get(int id) {
      return new HashMap<>(entries.get(id));
    }
  }

  private Instrumenter() {}

  public static byte[] instrument(byte[] bytes, MethodTable table) {
    ClassReader reader = new ClassReader(bytes);
    ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
    reader.accept(new TracingClass(writer, table), 0);
    return writer.toByteArray();
  }

  private static final class TracingClass extends ClassVisitor {
    private final MethodTable table;
    private String owner;
    private String source;
    private boolean isEnum;

    TracingClass(ClassVisitor next, MethodTable table) {
      super(Opcodes.ASM9, next);
      this.table = table;
    }

    @Override
    public void visit(
        int version, int access, String name, String signature, String superName, String[] ifaces) {
      owner = name;
      isEnum = (access & Opcodes.ACC_ENUM) != 0;
      super.visit(version, access, name, signature, superName, ifaces);
    }

    @Override
    public void visitSource(String file, String debug) {
      source = file;
      super.visitSource(file, debug);
    }

    @Override
    public MethodVisitor visitMethod(
        int access, String name, String descriptor, String signature, String[] exceptions) {
      MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
      int skipped =
          Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE;
      if ((access & skipped) != 0) return next;
      if (isEnum
          && (("values".equals(name) && descriptor.startsWith("()"))
              || ("valueOf".equals(name) && descriptor.startsWith("(Ljava/lang/String;)")))) {
        return next;
      }
      return new TracingMethod(next, table, owner, name, descriptor, source);
    }
  }

  private static final class TracingMethod extends MethodVisitor {
    private final MethodTable table;
    private final int id;
    private final String owner;
    private final String name;
    private final String descriptor;
    private final String source;

    TracingMethod(
        MethodVisitor next,
        MethodTable table,
        String owner,
        String name,
        String descriptor,
        String source) {
      super(Opcodes.ASM9, next);
      this.table = table;
      this.id = table.register(owner, name, descriptor, source);
      this.owner = owner;
      this.name = name;
      this.descriptor = descriptor;
      this.source = source;
    }

    @Override
    public void visitCode() {
      super.visitCode();
      hit(id);
    }

    /** The line whose hit goes before the next instruction, or -1. */
    private int pendingLine = -1;

    @Override
    public void visitLineNumber(int line, Label start) {
      table.noteLine(id, line);
      super.visitLineNumber(line, start);
      if (table.withLines) pendingLine = line;
    }

    /**
     * Writes a pending line's hit just before the line's first instruction: after its label and
     * after the stack map frame the reader gives there, which must stay at the label's offset
     * (a hit between them fails verification). Every path into the line runs it.
     */
    private void flushLine() {
      if (pendingLine < 0) return;
      int line = pendingLine;
      pendingLine = -1;
      hit(table.registerLine(owner, name, descriptor, source, line));
    }

    @Override
    public void visitInsn(int opcode) {
      flushLine();
      super.visitInsn(opcode);
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
      flushLine();
      super.visitIntInsn(opcode, operand);
    }

    @Override
    public void visitVarInsn(int opcode, int varIndex) {
      flushLine();
      super.visitVarInsn(opcode, varIndex);
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
      flushLine();
      super.visitTypeInsn(opcode, type);
    }

    @Override
    public void visitFieldInsn(int opcode, String fieldOwner, String fieldName, String fieldDesc) {
      flushLine();
      super.visitFieldInsn(opcode, fieldOwner, fieldName, fieldDesc);
    }

    @Override
    public void visitMethodInsn(
        int opcode, String callOwner, String callName, String callDesc, boolean isInterface) {
      flushLine();
      super.visitMethodInsn(opcode, callOwner, callName, callDesc, isInterface);
    }

    @Override
    public void visitInvokeDynamicInsn(
        String callName, String callDesc, Handle bootstrap, Object... arguments) {
      flushLine();
      super.visitInvokeDynamicInsn(callName, callDesc, bootstrap, arguments);
    }

    @Override
    public void visitJumpInsn(int opcode, Label label) {
      flushLine();
      super.visitJumpInsn(opcode, label);
    }

    @Override
    public void visitLdcInsn(Object value) {
      flushLine();
      super.visitLdcInsn(value);
    }

    @Override
    public void visitIincInsn(int varIndex, int increment) {
      flushLine();
      super.visitIincInsn(varIndex, increment);
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
      flushLine();
      super.visitTableSwitchInsn(min, max, dflt, labels);
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
      flushLine();
      super.visitLookupSwitchInsn(dflt, keys, labels);
    }

    @Override
    public void visitMultiANewArrayInsn(String type, int dimensions) {
      flushLine();
      super.visitMultiANewArrayInsn(type, dimensions);
    }

    private void hit(int traced) {
      if (traced <= Short.MAX_VALUE) {
        super.visitIntInsn(Opcodes.SIPUSH, traced);
      } else {
        super.visitLdcInsn(traced);
      }
      super.visitMethodInsn(Opcodes.INVOKESTATIC, TRACE, "hit", "(I)V", false);
    }
  }
}
