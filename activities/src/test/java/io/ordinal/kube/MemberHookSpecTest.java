package io.ordinal.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.ordinal.model.MemberHooks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MemberHookSpecTest {
  static final String BASE = "metadata.annotations[ordinal.io/member-hooks]";

  @Test
  void theEtcdExamplesHooksAreValidAndTimed() throws Exception {
    String manifest = Files.readString(Path.of("..", "deploy", "examples", "etcd.yaml"));
    var set = io.ordinal.store.KubeJson.YAML.readValue(manifest, io.fabric8.kubernetes.api.model.apps.StatefulSet.class);
    String text = set.getMetadata().getAnnotations().get(MemberHookSpec.ANNOTATION);
    assertEquals(List.of(), MemberHookSpec.problems(text).stream().map(p -> p[0] + ": " + p[1]).toList());
    MemberHookSpec spec = MemberHookSpec.of(set.getMetadata()).orElseThrow();
    assertEquals(new MemberHooks.Timing(30, 5, 2), spec.timings().preCreate());
    assertEquals(MemberHookSpec.ANY_OTHER_MEMBER, spec.preDelete().exec().target());
    assertEquals("etcd", spec.preCreate().exec().container());
  }

  @Test
  void defaultsAreOneMinuteThreeAttemptsTwoSecondsAndAPostForHttp() {
    var meta = new ObjectMetaBuilder().addToAnnotations(MemberHookSpec.ANNOTATION,
        "preDelete: {http: {url: 'http://127.0.0.1:9/leave'}}").build();
    MemberHookSpec spec = MemberHookSpec.of(meta).orElseThrow();
    assertEquals(null, spec.timings().preCreate());
    assertEquals(new MemberHooks.Timing(60, 3, 2), spec.timings().preDelete());
    assertEquals("POST", spec.preDelete().http().verb());
    assertEquals(null, spec.timings().preUpdate());
  }

  @Test
  void aPreUpdateHookReadsWithItsTimingAndMayRunInTheMemberItself() {
    var meta = new ObjectMetaBuilder().addToAnnotations(MemberHookSpec.ANNOTATION,
        "preUpdate: {exec: {command: [x], pod: Self}, timeoutSeconds: 20}").build();
    MemberHookSpec spec = MemberHookSpec.of(meta).orElseThrow();
    assertEquals(new MemberHooks.Timing(20, 3, 2), spec.timings().preUpdate());
    assertEquals(spec.preUpdate(), spec.hook(MemberHooks.PRE_UPDATE));
    assertTrue(MemberHookSpec.problems("preUpdate: {exec: {command: [x], pod: Self}}").isEmpty());
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("preCreate: [", BASE, "not valid YAML"),
        Arguments.of("{}", BASE, "must name a preCreate, a preDelete or a preUpdate"),
        Arguments.of("preUpdate: {exec: {command: []}}", BASE + ".preUpdate.exec.command", "Required value"),
        Arguments.of("preCreate: {exec: {command: [x]}}\npostDelete: {}", BASE, "unknown field \"postDelete\""),
        Arguments.of("preCreate: {timeoutSeconds: 5}", BASE + ".preCreate", "exactly one of exec and http"),
        Arguments.of("preCreate: {exec: {command: [x]}, http: {url: 'http://a'}}", BASE + ".preCreate", "exactly one"),
        Arguments.of("preCreate: {exec: {command: []}}", BASE + ".preCreate.exec.command", "Required value"),
        Arguments.of("preCreate: {exec: {command: [x], pod: Self}}", BASE + ".preCreate.exec.pod", "before the pod exists"),
        Arguments.of("preDelete: {http: {url: 'ftp://a/b'}}", BASE + ".preDelete.http.url", "http or https URL"),
        Arguments.of("preDelete: {exec: {command: [x]}, timeoutSeconds: 0}", BASE + ".preDelete.timeoutSeconds", "between 1"),
        Arguments.of("preDelete: {exec: {command: [x]}, maxAttempts: 0}", BASE + ".preDelete.maxAttempts", "between 1"),
        Arguments.of("preDelete: {exec: {command: [x]}, backoffSeconds: -1}", BASE + ".preDelete.backoffSeconds", "between 0"),
        Arguments.of("preDelete: {exec: {command: [x]}, completionDeadlineSeconds: 0}",
            BASE + ".preDelete.completionDeadlineSeconds", "between 1"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void invalidHooksNameTheirField(String text, String field, String message) {
    List<String[]> problems = MemberHookSpec.problems(text);
    assertTrue(problems.stream().anyMatch(p -> p[0].equals(field) && p[1].contains(message)),
        problems.stream().map(p -> p[0] + ": " + p[1]).toList().toString());
  }

  @Test
  void selfMayRunABeforeDeleteHook() {
    assertEquals(List.of(), MemberHookSpec.problems("preDelete: {exec: {command: [x], pod: Self}}"));
  }
}
