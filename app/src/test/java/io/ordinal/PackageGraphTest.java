package io.ordinal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The packages of the three modules, read from their sources: no package imports another that
 * imports it back (directly or around a circle), and no package is split across modules. A class
 * named by its full name counts as an import.
 */
class PackageGraphTest {
  private static final List<String> MODULES = List.of("workflows", "activities", "app");
  private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern REFERENCE = Pattern.compile("\\b(io\\.ordinal(?:\\.[a-z]\\w*)*)\\.[A-Z]");

  @Test
  void noPackageCycles() {
    Map<String, Set<String>> imports = new TreeMap<>();
    sources().forEach((module, files) -> files.forEach(file -> {
      String text = read(file);
      Matcher pkg = PACKAGE.matcher(text);
      assertTrue(pkg.find(), "no package line in " + file);
      Set<String> used = imports.computeIfAbsent(pkg.group(1), p -> new TreeSet<>());
      Matcher ref = REFERENCE.matcher(text);
      while (ref.find()) {
        if (!ref.group(1).equals(pkg.group(1))) {
          used.add(ref.group(1));
        }
      }
    }));
    assertTrue(imports.size() > 20, "the sources were found: " + imports.keySet());
    List<List<String>> cycles = stronglyConnected(imports).stream().filter(c -> c.size() > 1).toList();
    assertEquals(List.of(), cycles, "packages that depend on each other");
  }

  @Test
  void noPackageIsSplitAcrossModules() {
    Map<String, Set<String>> modulesOf = new TreeMap<>();
    sources().forEach((module, files) -> files.forEach(file -> {
      Matcher pkg = PACKAGE.matcher(read(file));
      if (pkg.find()) {
        modulesOf.computeIfAbsent(pkg.group(1), p -> new TreeSet<>()).add(module);
      }
    }));
    Map<String, Set<String>> split = new TreeMap<>();
    modulesOf.forEach((pkg, modules) -> {
      if (modules.size() > 1) {
        split.put(pkg, modules);
      }
    });
    assertEquals(Map.of(), split);
  }

  /** Tests run in app/; the modules are its siblings. */
  private static Map<String, List<Path>> sources() {
    Map<String, List<Path>> sources = new TreeMap<>();
    for (String module : MODULES) {
      Path root = Path.of("..", module, "src", "main", "java");
      try (Stream<Path> walk = Files.walk(root)) {
        sources.put(module, walk.filter(p -> p.toString().endsWith(".java")).toList());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return sources;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Tarjan's strongly connected components, each sorted. */
  private static List<List<String>> stronglyConnected(Map<String, Set<String>> edges) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<List<String>> components = new ArrayList<>();
    for (String start : edges.keySet()) {
      if (!index.containsKey(start)) {
        visit(start, edges, index, low, stack, onStack, components);
      }
    }
    return components;
  }

  private static void visit(String v, Map<String, Set<String>> edges, Map<String, Integer> index,
      Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<List<String>> components) {
    index.put(v, index.size());
    low.put(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (String w : edges.getOrDefault(v, Set.of())) {
      if (!edges.containsKey(w)) {
        continue;
      }
      if (!index.containsKey(w)) {
        visit(w, edges, index, low, stack, onStack, components);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      List<String> component = new ArrayList<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      component.sort(null);
      components.add(component);
    }
  }
}
