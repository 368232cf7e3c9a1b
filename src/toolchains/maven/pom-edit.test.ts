import { describe, expect, it } from 'vitest';
import { applyPomEdit, javaLevelAsWritten, type PomEdit } from './pom-edit.js';

const pinCompiler: PomEdit = {
  kind: 'pin-plugin',
  groupId: 'org.apache.maven.plugins',
  artifactId: 'maven-compiler-plugin',
  version: '3.11.0',
};
const pom = (body: string) => `<project>\n  <artifactId>p</artifactId>\n${body}</project>\n`;
const edited = (text: string, edit: PomEdit) =>
  applyPomEdit([{ path: 'pom.xml', text }], 'pom.xml', edit)[0]?.text;

describe('pom edits', () => {
  it('declares an undeclared plugin in the root pom, with a build section if it has none', () => {
    const text = edited(pom(''), pinCompiler)!;
    expect(text).toContain(
      '  <build>\n    <plugins>\n      <plugin>\n        <groupId>org.apache.maven.plugins</groupId>\n        <artifactId>maven-compiler-plugin</artifactId>\n        <version>3.11.0</version>\n      </plugin>\n    </plugins>\n  </build>\n</project>',
    );
  });

  it("adds it to the build's own plugins, not to pluginManagement or a profile's build", () => {
    const text = edited(
      pom(
        '  <build>\n    <pluginManagement><plugins><plugin><artifactId>x</artifactId></plugin></plugins></pluginManagement>\n    <plugins>\n    </plugins>\n  </build>\n  <profiles><profile><build><plugins/></build></profile></profiles>\n',
      ),
      pinCompiler,
    )!;
    const [management, rest] = text.split('</pluginManagement>');
    expect(management).not.toContain('maven-compiler-plugin');
    expect(rest!.split('<profiles>')[0]).toContain('<version>3.11.0</version>');
  });

  it("unbinds an inherited execution, in the plugin's own declaration when the pom has one", () => {
    const disable: PomEdit = {
      kind: 'disable-execution',
      groupId: 'org.apache.felix',
      artifactId: 'maven-bundle-plugin',
      executionId: 'bundle-manifest',
    };
    const declared = edited(pom(''), disable)!;
    expect(declared).toContain(
      '<artifactId>maven-bundle-plugin</artifactId>\n        <executions>\n          <execution>\n            <id>bundle-manifest</id>\n            <phase>none</phase>',
    );
    // After the bundle plugin was pinned: one declaration, with the execution inside it.
    const pinned = edited(
      declared.replace(
        /<executions>[\s\S]*<\/executions>\n\s*/,
        '<version>5.1.8</version>\n      ',
      ),
      disable,
    )!;
    expect(pinned.match(/<artifactId>maven-bundle-plugin<\/artifactId>/g)).toHaveLength(1);
    expect(pinned).toMatch(
      /<version>5\.1\.8<\/version>\s*<executions><execution><id>bundle-manifest<\/id><phase>none<\/phase>/,
    );
  });

  it('sets the version wherever a pom of the tree declares the plugin, keeping its configuration', () => {
    const parent = pom(
      '  <build><plugins><plugin>\n    <groupId>org.apache.felix</groupId>\n    <artifactId>maven-bundle-plugin</artifactId>\n    <version>${bundle.version}</version>\n    <executions><execution><goals><goal>manifest</goal></goals></execution></executions>\n    <dependencies><dependency><artifactId>d</artifactId><version>1.0</version></dependency></dependencies>\n  </plugin></plugins></build>\n',
    );
    const changed = applyPomEdit(
      [
        { path: 'pom.xml', text: pom('') },
        { path: 'parent/pom.xml', text: parent },
      ],
      'pom.xml',
      {
        kind: 'pin-plugin',
        groupId: 'org.apache.felix',
        artifactId: 'maven-bundle-plugin',
        version: '5.1.8',
      },
    );
    expect(changed.map((file) => file.path)).toEqual(['parent/pom.xml']);
    expect(changed[0]!.text).toContain('<version>5.1.8</version>');
    expect(changed[0]!.text).toContain('<goal>manifest</goal>');
    expect(changed[0]!.text).toContain('<version>1.0</version>');
  });

  it('adds a version to a declaration without one; a plugin of another group is not it', () => {
    const text = edited(
      pom(
        '  <build><plugins><plugin><artifactId>maven-compiler-plugin</artifactId></plugin></plugins></build>\n',
      ),
      pinCompiler,
    )!;
    expect(text).toContain(
      '<artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version>',
    );
    const other = pom(
      '  <build><plugins><plugin><groupId>org.other</groupId><artifactId>maven-compiler-plugin</artifactId></plugin></plugins></build>\n',
    );
    expect(edited(other, pinCompiler)).toContain('<groupId>org.apache.maven.plugins</groupId>');
  });

  it('changes nothing when the plugin already has that version', () => {
    const text = pom(
      '  <build><plugins><plugin><artifactId>maven-compiler-plugin</artifactId><version>3.11.0</version></plugin></plugins></build>\n',
    );
    expect(applyPomEdit([{ path: 'pom.xml', text }], 'pom.xml', pinCompiler)).toEqual([]);
  });

  it("raises a parent's level property set to a bare number, never a version number", () => {
    const text = pom(
      '<properties><joda.release.version>6</joda.release.version><commons.release.version>1.5</commons.release.version><java.version>1.6</java.version></properties>',
    );
    const raised = edited(text, { kind: 'raise-java-level', to: 8 })!;
    expect(raised).toContain('<joda.release.version>8</joda.release.version>');
    expect(raised).toContain('<commons.release.version>1.5</commons.release.version>');
    expect(raised).toContain('<java.version>1.8</java.version>');
  });

  it('raises Java levels below 8 in properties and plugin configuration, and only those', () => {
    const text = pom(
      '  <properties><maven.compiler.source>1.6</maven.compiler.source><maven.compiler.target>11</maven.compiler.target></properties>\n  <configuration><release>6</release><testSource> 1.5 </testSource><source>1.8</source><target><echo/></target></configuration>\n',
    );
    const raised = edited(text, { kind: 'raise-java-level', to: 8 })!;
    expect(raised).toContain('<maven.compiler.source>1.8</maven.compiler.source>');
    expect(raised).toContain('<maven.compiler.target>11</maven.compiler.target>');
    expect(raised).toContain(
      '<release>8</release><testSource>1.8</testSource><source>1.8</source>',
    );
    expect(raised).toContain('<target><echo/></target>');
    expect(
      edited(pom('<release>11</release>'), { kind: 'raise-java-level', to: 8 }),
    ).toBeUndefined();
  });

  it('spells a raised level as the poms spell the levels it raises: 1.x, unless bare only', () => {
    const dotted = [{ path: 'pom.xml', text: pom('<source>1.5</source><release>9</release>') }];
    const bare = [{ path: 'pom.xml', text: pom('<release>6</release><source>1.8</source>') }];
    const none = [{ path: 'pom.xml', text: pom('<release>11</release>') }];
    expect(javaLevelAsWritten(dotted, 8)).toBe('1.8');
    expect(javaLevelAsWritten(bare, 8)).toBe('8');
    expect(javaLevelAsWritten(none, 8)).toBe('1.8');
    expect(javaLevelAsWritten(dotted, 11)).toBe('11');
  });
});
