package witnessgym.boot;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.Handle;
import org.objectweb.asm.Label;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * A digest of each method's code, line numbers left out (an edit elsewhere in the file moves
 * them), so two compilations of a class can be compared method by method. The key "#class"
 * stands for everything outside method code (fields, supertypes, the set of methods javac was
 * asked for).
 */
public final class MethodFingerprints {
  public static final String CLASS_SHAPE = "#class";

  private MethodFingerprints() {}

  /** Method key (name + descriptor) to fingerprint. */
  public static Map<String, String> of(byte[] classFile) {
    Map<String, String> result = new HashMap<>();
    StringBuilder shape = new StringBuilder();
    new ClassReader(classFile)
        .accept(
            new ClassVisitor(Opcodes.ASM9) {
              @Override
              public void visit(
                  int version, int access, String name, String signature, String superName,
                  String[] interfaces) {
                shape.append(access).append(' ').append(superName).append(' ');
                if (interfaces != null) shape.append(String.join(",", interfaces));
              }

              @Override
              public org.objectweb.asm.FieldVisitor visitField(
                  int access, String name, String descriptor, String signature, Object value) {
                shape.append('|').append(access).append(name).append(descriptor).append(value);
                return null;
              }

              @Override
              public MethodVisitor visitMethod(
                  int access, String name, String descriptor, String signature, String[] ex) {
                StringBuilder code = new StringBuilder().append(access).append(';');
                String key = name + descriptor;
                if (!compilerHelper(access)) shape.append("|m").append(key);
                return new Recorder(code, () -> result.put(key, code.toString()));
              }
            },
            ClassReader.SKIP_DEBUG);
    result.put(CLASS_SHAPE, shape.toString());
    return result;
  }

  /**
   * Accessors (access$200) and lambda bodies that javac adds and renumbers as the source changes.
   * Being static or private, they override nothing, so only code that calls them can run them; that
   * code's own fingerprint changes with the call, so they need not count as a change of shape.
   */
  private static boolean compilerHelper(int access) {
    return (access & Opcodes.ACC_SYNTHETIC) != 0
        && (access & (Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) != 0;
  }

  /** Writes every instruction and its operands; labels become their order of appearance. */
  private static final class Recorder extends MethodVisitor {
    private final StringBuilder out;
    private final Runnable done;
    private final Map<Label, Integer> labels = new IdentityHashMap<>();

    Recorder(StringBuilder out, Runnable done) {
      super(Opcodes.ASM9);
      this.out = out;
      this.done = done;
    }

    private int label(Label label) {
      return labels.computeIfAbsent(label, l -> labels.size());
    }

    @Override
    public void visitInsn(int opcode) {
      out.append(opcode).append(';');
    }

    @Override
    public void visitIntInsn(int opcode, int operand) {
      out.append(opcode).append(' ').append(operand).append(';');
    }

    @Override
    public void visitVarInsn(int opcode, int var) {
      out.append(opcode).append(' ').append(var).append(';');
    }

    @Override
    public void visitTypeInsn(int opcode, String type) {
      out.append(opcode).append(' ').append(type).append(';');
    }

    @Override
    public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
      out.append(opcode).append(' ').append(owner).append('.').append(name).append(descriptor).append(';');
    }

    @Override
    public void visitMethodInsn(
        int opcode, String owner, String name, String descriptor, boolean isInterface) {
      out.append(opcode).append(' ').append(owner).append('.').append(name).append(descriptor).append(';');
    }

    @Override
    public void visitInvokeDynamicInsn(String name, String descriptor, Handle bsm, Object... args) {
      out.append("indy ").append(name).append(descriptor).append(' ').append(bsm);
      for (Object arg : args) out.append(' ').append(arg);
      out.append(';');
    }

    @Override
    public void visitJumpInsn(int opcode, Label target) {
      out.append(opcode).append(" L").append(label(target)).append(';');
    }

    @Override
    public void visitLabel(Label label) {
      out.append('L').append(label(label)).append(':');
    }

    @Override
    public void visitLdcInsn(Object value) {
      out.append("ldc ").append(value).append(';');
    }

    @Override
    public void visitIincInsn(int var, int increment) {
      out.append("iinc ").append(var).append(' ').append(increment).append(';');
    }

    @Override
    public void visitTableSwitchInsn(int min, int max, Label dflt, Label... targets) {
      out.append("tswitch ").append(min).append(' ').append(max).append(" L").append(label(dflt));
      for (Label target : targets) out.append(" L").append(label(target));
      out.append(';');
    }

    @Override
    public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] targets) {
      out.append("lswitch L").append(label(dflt));
      for (int i = 0; i < keys.length; i++) out.append(' ').append(keys[i]).append(" L").append(label(targets[i]));
      out.append(';');
    }

    @Override
    public void visitMultiANewArrayInsn(String descriptor, int dims) {
      out.append("multianew ").append(descriptor).append(' ').append(dims).append(';');
    }

    @Override
    public void visitTryCatchBlock(Label start, Label end, Label handler, String type) {
      out.append("try L").append(label(start)).append(" L").append(label(end)).append(" L").append(label(handler)).append(' ').append(type).append(';');
    }

    @Override
    public void visitEnd() {
      done.run();
    }
  }
}
