package io.ordinal.driver.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** No name that becomes a path can leave its directory, whatever admission let through. */
class LocalPathsTest {
  @TempDir
  Path data;

  @ParameterizedTest
  @ValueSource(strings = {"..", ".", "", "../../etc", "a/b", "/etc", "a\0b"})
  void craftedNamesAreRefusedWhereThePathIsBuilt(String name) throws Exception {
    LocalPaths paths = new LocalPaths(data.toString());
    assertThrows(IllegalArgumentException.class, () -> paths.volume("ns", name));
    assertThrows(IllegalArgumentException.class, () -> paths.volume(name, "claim"));
    assertThrows(IllegalArgumentException.class, () -> paths.pod(name, "web-0"));
    assertThrows(IllegalArgumentException.class, () -> paths.hosts("ns", name));
  }

  @Test
  void namesStayBelowTheDataDir() throws Exception {
    LocalPaths paths = new LocalPaths(data.toString());
    assertEquals(data.resolve("local/volumes/ns/data-web-0"), paths.volume("ns", "data-web-0"));
    assertEquals(data.resolve("local/pods/ns/web-0/logs"), paths.logs("ns", "web-0"));
  }
}
