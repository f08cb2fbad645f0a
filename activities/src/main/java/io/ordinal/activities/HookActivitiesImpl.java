package io.ordinal.activities;

import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.ordinal.driver.DriverPod;
import io.ordinal.driver.DriverRegistry;
import io.ordinal.driver.ExecProcess;
import io.ordinal.driver.ExecRequest;
import io.ordinal.kube.LeaderLabel;
import io.ordinal.kube.MemberHookSpec;
import io.ordinal.kube.PodHostname;
import io.ordinal.kube.StatefulSetFields;
import io.ordinal.model.MemberHooks;
import io.ordinal.model.PodSnapshot;
import io.ordinal.model.SetKey;
import io.ordinal.store.EventRecorder;
import io.ordinal.store.HookWaitStore;
import io.ordinal.store.KubeJson;
import io.ordinal.store.MemberStore;
import io.ordinal.store.PodRow;
import io.ordinal.store.PodStore;
import io.ordinal.store.StatefulSetStore;
import io.ordinal.workflow.HookActivities;
import io.temporal.activity.Activity;
import io.temporal.failure.ApplicationFailure;
import jakarta.inject.Singleton;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs membership hooks: an exec in a running member (through the set's driver, like kubectl exec)
 * or an HTTP call, with the member's identity in its environment, heartbeating while it runs.
 */
@Singleton
public class HookActivitiesImpl implements HookActivities {
  private static final int MAX_OUTPUT = 16 * 1024;
  private static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(2);
  /** How often a running hook is checked for its exit: a few ms of a scale, not a heartbeat interval. */
  private static final Duration POLL = Duration.ofMillis(20);
  /** How often an accepted hook's wait looks for its completion. */
  private static final Duration WAIT_POLL = Duration.ofSeconds(1);
  private final StatefulSetStore sets;
  private final PodStore pods;
  private final MemberStore members;
  private final HookWaitStore waits;
  private final EventRecorder events;
  private final DriverRegistry drivers;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  public HookActivitiesImpl(StatefulSetStore sets, PodStore pods, MemberStore members, HookWaitStore waits,
      EventRecorder events, DriverRegistry drivers) {
    this.sets = sets;
    this.pods = pods;
    this.members = members;
    this.waits = waits;
    this.events = events;
    this.drivers = drivers;
  }

  @Override
  public String runHook(HookRun run) {
    SetKey key = run.set();
    StatefulSet set = sets.get(key.namespace(), key.name()).orElse(null);
    if (set == null) {
      return "the set is gone: nothing to do";
    }
    MemberHookSpec.Hook hook = MemberHookSpec.of(set.getMetadata()).map(spec -> spec.hook(run.hook())).orElse(null);
    String output = "";
    if (hook != null) {
      Map<String, String> env = environment(set, run);
      int attempt = Activity.getExecutionContext().getInfo().getAttempt();
      try {
        // A wait an earlier attempt of this operation recorded: the hook accepted then; it is not run
        // again (and a completion reported meanwhile is taken). One another operation left is not
        // this one's: the hook runs, and its acceptance replaces it.
        String operation = Activity.getExecutionContext().getInfo().getWorkflowId();
        Optional<HookWaitStore.Wait> waiting = hook.completionDeadline() <= 0 ? Optional.empty()
            : waits.find(key.namespace(), key.name(), run.podName(), run.hook())
                .filter(wait -> wait.workflowId().equals(operation))
                .filter(wait -> wait.completed() || wait.deadline().isAfter(Instant.now()));
        if (waiting.isEmpty()) {
          Answer answer = hook.exec() != null ? exec(set, run, hook, env) : call(hook, env);
          output = answer.output();
          // Without a completion deadline a 202 is a success like any 2xx, as before there were waits.
          if (answer.accepted() && hook.completionDeadline() > 0) {
            waiting = Optional.of(accept(set, run, hook, operation, output));
          }
        }
        if (waiting.isPresent()) {
          output = awaitCompletion(run, waiting.get());
          if (HookActivities.abandoned(output)) {
            return output;
          }
        }
      } catch (HookFailedException e) {
        events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(), EventRecorder.WARNING,
            "MemberHookFailed", describe(run) + " failed (attempt " + attempt + "): " + e.getMessage());
        throw ApplicationFailure.newFailure(describe(run) + " failed: " + e.getMessage(), "MemberHookFailed");
      }
      String succeeded = describe(run) + " succeeded" + (output.isBlank() ? "" : ": " + lastLine(output));
      if (SetConditions.status(set, SetConditions.MEMBERSHIP_HOOK).filter("False"::equals).isPresent()) {
        SetConditions.set(sets, events, key, SetConditions.MEMBERSHIP_HOOK, true, "MemberHookSucceeded", succeeded);
      } else {
        events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(), EventRecorder.NORMAL,
            "MemberHookSucceeded", succeeded);
      }
    }
    if (MemberHooks.PRE_CREATE.equals(run.hook())) {
      members.join(key.namespace(), key.name(), run.ordinal());
    } else if (MemberHooks.PRE_DELETE.equals(run.hook())) {
      members.leave(key.namespace(), key.name(), run.ordinal());
    }
    return output;
  }

  /** What a hook answered: its output, and whether it accepted to finish later. */
  private record Answer(String output, boolean accepted) {}

  /**
   * A line of its output by which an exec hook accepts to finish later (an HTTP hook answers 202);
   * any line of the first 16 KiB, stdout or stderr, since the two are read apart.
   */
  public static final String ACCEPTED_LINE = "ordinal:accepted";

  private HookWaitStore.Wait accept(StatefulSet set, HookRun run, MemberHookSpec.Hook hook, String operation,
      String output) {
    SetKey key = run.set();
    Instant deadline = Instant.now().plusSeconds(hook.completionDeadline());
    waits.accept(key.namespace(), key.name(), run.podName(), run.hook(), operation, deadline);
    events.record(key.namespace(), "StatefulSet", key.name(), set.getMetadata().getUid(), EventRecorder.NORMAL,
        "MemberHookAccepted", describe(run) + " accepted; its completion is awaited until " + deadline
            + (output.isBlank() ? "" : ": " + lastLine(output)));
    return waits.find(key.namespace(), key.name(), run.podName(), run.hook()).orElseThrow();
  }

  /**
   * Waits, heartbeating, for the member's report of an accepted hook's completion (the API writes it
   * into the wait), its deadline, or a spec that no longer wants the hook (the member's ordinal back
   * in the range before it left, out of it before it joined), which ends the wait: the operation plans
   * again. A wait that ends without a completion is forgotten, so a retry runs the hook again.
   */
  private String awaitCompletion(HookRun run, HookWaitStore.Wait accepted) throws HookFailedException {
    SetKey key = run.set();
    try {
      while (true) {
        Optional<HookWaitStore.Wait> wait = waits.find(key.namespace(), key.name(), run.podName(), run.hook());
        Optional<StatefulSet> set = sets.get(key.namespace(), key.name());
        // First: a completion reported for a member the set no longer sends away (an undo) is not acted on.
        if (wait.isEmpty() || set.isEmpty() || !stillWanted(set.get(), run)) {
          waits.forget(key.namespace(), key.name(), run.podName(), run.hook());
          return HookActivities.ABANDONED;
        }
        if (wait.get().completed()) {
          // Kept, so that an attempt after a crash right here takes it again instead of running the hook.
          String message = Objects.requireNonNullElse(wait.get().message(), "");
          if (!Boolean.TRUE.equals(wait.get().succeeded())) {
            waits.forget(key.namespace(), key.name(), run.podName(), run.hook()); // a retry runs the hook again
            throw new HookFailedException("its member reported a failure" + (message.isBlank() ? "" : ": " + message));
          }
          return "completed" + (message.isBlank() ? "" : ": " + message);
        }
        if (Instant.now().isAfter(accepted.deadline())) {
          waits.forget(key.namespace(), key.name(), run.podName(), run.hook());
          throw new HookFailedException("its member reported no completion by " + accepted.deadline());
        }
        Activity.getExecutionContext().heartbeat("accepted at " + accepted.acceptedAt()
            + "; waiting for its member's completion until " + accepted.deadline());
        Thread.sleep(WAIT_POLL.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HookFailedException("interrupted");
    }
  }

  /**
   * Whether the set still asks for what the hook prepares: a member leaving whose ordinal is out of
   * the range (or the set being deleted), one joining whose ordinal is in it. A pause changes neither.
   */
  private static boolean stillWanted(StatefulSet set, HookRun run) {
    boolean deleting = set.getMetadata().getDeletionTimestamp() != null;
    boolean inRange = StatefulSetFields.inOrdinalRange(set, run.ordinal());
    return switch (run.hook()) {
      case MemberHooks.PRE_DELETE -> deleting || !inRange;
      case MemberHooks.PRE_CREATE -> !deleting && inRange;
      default -> !deleting;
    };
  }

  private static String describe(HookRun run) {
    return run.hook() + " hook of " + run.podName() + " (" + run.reason() + ")";
  }

  /** What a hook learns of the member: the environment of an exec, the JSON body of an HTTP call. */
  private Map<String, String> environment(StatefulSet set, HookRun run) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("ORDINAL_HOOK", run.hook());
    env.put("ORDINAL_HOOK_REASON", run.reason());
    env.put("ORDINAL_NAMESPACE", run.set().namespace());
    env.put("ORDINAL_SET", run.set().name());
    env.put("ORDINAL_MEMBER_ORDINAL", Integer.toString(run.ordinal()));
    env.put("ORDINAL_MEMBER_POD", run.podName());
    // The name the member's pod will answer to (PodFactory makes spec.hostname its name, spec.subdomain the service).
    PodHostname member = PodHostname.of(run.set().namespace(), run.podName(), null, set.getSpec().getServiceName());
    if (member.domain() != null) {
      env.put("ORDINAL_MEMBER_FQDN", member.fqdn());
    }
    drivers.get(drivers.nameFor(set)).stableAddress(run.set().namespace(), run.set().name(), run.podName())
        .ifPresent(address -> env.put("ORDINAL_MEMBER_ADDRESS", address));
    LeaderLabel.of(set.getMetadata()).ifPresent(leader -> env.put("ORDINAL_MEMBER_ROLE",
        pods.find(run.set().namespace(), run.podName()).map(PodStore::labels).filter(leader::matches).isPresent()
            ? "leader" : "follower"));
    return env;
  }

  private Answer exec(StatefulSet set, HookRun run, MemberHookSpec.Hook hook, Map<String, String> env)
      throws HookFailedException {
    PodRow target = target(run, hook.exec().target());
    DriverPod pod = DriverPod.of(target);
    String container = hook.exec().container() != null ? hook.exec().container()
        : pod.object().getSpec().getContainers().getFirst().getName();
    List<String> argv = new ArrayList<>();
    argv.add("/usr/bin/env");
    env.forEach((name, value) -> argv.add(name + "=" + value));
    argv.addAll(hook.exec().command());
    ExecProcess process;
    try {
      process = drivers.get(target.driver()).exec(new ExecRequest(pod, container, argv, false, true, true, false));
    } catch (IOException | RuntimeException e) {
      throw new HookFailedException("could not start it in " + target.name() + "/" + container + ": " + e.getMessage());
    }
    Output output = new Output();
    List<Thread> readers = new ArrayList<>();
    process.stdout().ifPresent(in -> readers.add(Thread.ofVirtual().start(() -> output.copy(in))));
    process.stderr().ifPresent(in -> readers.add(Thread.ofVirtual().start(() -> output.copy(in))));
    Instant deadline = Instant.now().plusSeconds(hook.timeout());
    Instant nextHeartbeat = Instant.now();
    try {
      while (process.alive()) {
        Instant now = Instant.now();
        if (now.isAfter(deadline)) {
          process.kill();
          throw new HookFailedException("timed out after " + hook.timeout() + "s in " + target.name()
              + output.tail());
        }
        if (!now.isBefore(nextHeartbeat)) {
          Activity.getExecutionContext().heartbeat("running in " + target.name() + "/" + container);
          nextHeartbeat = now.plus(HEARTBEAT_EVERY);
        }
        Thread.sleep(POLL.toMillis());
      }
      int exit = process.waitFor();
      for (Thread reader : readers) {
        reader.join(Duration.ofSeconds(5));
      }
      if (exit != 0) {
        throw new HookFailedException("exited " + exit + " in " + target.name() + output.tail());
      }
      String text = output.text();
      return new Answer("ran in " + target.name() + "/" + container + "\n" + text,
          text.lines().anyMatch(line -> line.strip().equals(ACCEPTED_LINE)));
    } catch (InterruptedException e) {
      process.kill();
      Thread.currentThread().interrupt();
      throw new HookFailedException("interrupted");
    }
  }

  /**
   * The pod an exec hook runs in: the member's own ({@code Self}), a named one, or the lowest
   * Running and Ready pod of the set other than the member ({@code AnyOtherMember}).
   */
  private PodRow target(HookRun run, String which) throws HookFailedException {
    SetKey key = run.set();
    if (MemberHookSpec.SELF.equals(which) || !MemberHookSpec.ANY_OTHER_MEMBER.equals(which)) {
      String name = MemberHookSpec.SELF.equals(which) ? run.podName() : which;
      return pods.find(key.namespace(), name).filter(row -> PodSnapshot.RUNNING.equals(row.phase()))
          .orElseThrow(() -> new HookFailedException("pod " + name + " is not running"));
    }
    // The set's own pods: not one it released, whose labels no longer match.
    String setUid = sets.uid(key.namespace(), key.name()).orElse("");
    List<PodRow> all = pods.ofSet(key.namespace(), key.name()).stream()
        .filter(row -> PodStore.controlledBy(row, setUid)).toList();
    Optional<PodRow> other = all.stream()
        .filter(row -> row.ordinal() != run.ordinal() && !row.terminating() && row.ready()
            && PodSnapshot.RUNNING.equals(row.phase()))
        .min(Comparator.comparingInt(PodRow::ordinal));
    if (other.isEmpty() && !MemberHooks.PRE_CREATE.equals(run.hook())) {
      // The last member leaving (the set deleted or scaled to zero), or the only one updated, has no
      // one else to run in.
      other = all.stream().filter(row -> row.ordinal() == run.ordinal() && PodSnapshot.RUNNING.equals(row.phase()))
          .findFirst();
    }
    return other.orElseThrow(() -> new HookFailedException("no other member of " + key + " is Running and Ready"));
  }

  /** The HTTP hook, heartbeating while it waits: its timeout may be longer than the heartbeat timeout. */
  private Answer call(MemberHookSpec.Hook hook, Map<String, String> env) throws HookFailedException {
    MemberHookSpec.Http target = hook.http();
    String call = target.verb() + " " + target.url();
    CompletableFuture<HttpResponse<String>> pending = http.sendAsync(HttpRequest.newBuilder(URI.create(target.url()))
            .timeout(Duration.ofSeconds(hook.timeout()))
            .header("Content-Type", "application/json")
            .method(target.verb(), HttpRequest.BodyPublishers.ofString(KubeJson.write(env)))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    try {
      HttpResponse<String> response = null;
      while (response == null) {
        try {
          response = pending.get(HEARTBEAT_EVERY.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          Activity.getExecutionContext().heartbeat("waiting for " + call);
        }
      }
      String body = response.body().length() > MAX_OUTPUT ? response.body().substring(0, MAX_OUTPUT) : response.body();
      if (response.statusCode() / 100 != 2) {
        throw new HookFailedException(call + " answered " + response.statusCode()
            + (body.isBlank() ? "" : ": " + lastLine(body)));
      }
      return new Answer(body, response.statusCode() == 202);
    } catch (ExecutionException e) {
      throw new HookFailedException(call + (e.getCause() instanceof HttpTimeoutException
          ? ": timed out after " + hook.timeout() + "s" : ": " + e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new HookFailedException("interrupted");
    } finally {
      pending.cancel(true); // no-op once answered; a heartbeat that threw (cancelled, timed out) leaves it pending
    }
  }

  private static String lastLine(String text) {
    String trimmed = text.strip();
    return trimmed.substring(trimmed.lastIndexOf('\n') + 1);
  }

  /** The first {@link #MAX_OUTPUT} bytes a hook printed, stdout and stderr interleaved. */
  private static final class Output {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    void copy(InputStream in) {
      byte[] buffer = new byte[4096];
      try (in) {
        for (int n; (n = in.read(buffer)) >= 0; ) {
          synchronized (bytes) {
            bytes.write(buffer, 0, Math.max(0, Math.min(n, MAX_OUTPUT - bytes.size())));
          }
        }
      } catch (IOException e) {
        // the process ended or was killed: what was read is kept
      }
    }

    String text() {
      synchronized (bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
      }
    }

    String tail() {
      String text = text().strip();
      return text.isEmpty() ? "" : ": " + (text.length() > 500 ? "…" + text.substring(text.length() - 500) : text);
    }
  }

  private static final class HookFailedException extends Exception {
    HookFailedException(String message) {
      super(message);
    }
  }
}
