package io.ordinal.e2e;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A release CHANGELOG.md records (a heading {@code ## VERSION — DATE — commit SHA}), whose jar
 * ./ordinal test builds from that commit into {@code ORDINAL_RELEASES_DIR/SHA/ordinal.jar}.
 */
record Release(String version, String commit) {
  static final Path CHANGELOG = Path.of("..", "CHANGELOG.md").toAbsolutePath().normalize();
  private static final Pattern HEADING = Pattern.compile("^## (\\d+\\.\\d+\\.\\d+) .*commit ([0-9a-f]{40})", Pattern.MULTILINE);

  /** Every release recorded, newest first (as the file lists them). */
  static List<Release> all() {
    try {
      return HEADING.matcher(Files.readString(CHANGELOG)).results()
          .map(heading -> new Release(heading.group(1), heading.group(2))).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The newest release: the one this build must take over from. */
  static Release newest() {
    return all().getFirst();
  }

  static Release named(String version) {
    return all().stream().filter(release -> release.version.equals(version)).findFirst()
        .orElseThrow(() -> new AssertionError("no release " + version + " in " + CHANGELOG));
  }

  /** The release's service jar, built by ./ordinal test. */
  Path jar() {
    String dir = System.getenv("ORDINAL_RELEASES_DIR");
    assertNotNull(dir, "./ordinal test builds the releases of CHANGELOG.md and sets ORDINAL_RELEASES_DIR");
    Path jar = Path.of(dir, commit, "ordinal.jar");
    assertTrue(Files.isRegularFile(jar), "release " + version + " (" + commit + ") was not built: see ./ordinal test's output");
    return jar;
  }
}
