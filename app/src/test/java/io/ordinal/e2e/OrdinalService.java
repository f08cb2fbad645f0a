package io.ordinal.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.ordinal.driver.ProcStat;
import io.ordinal.store.KubeJson;
import io.ordinal.workflow.LargePayloadCodec;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The packaged service as a real process (java -jar), with its own data dir and ports, the real
 * Temporal dev server and the real embedded PostgreSQL it starts itself.
 */
final class OrdinalService implements AutoCloseable {
  private static OrdinalService shared;
  /** What Steps logs when a complete reading repairs what incremental ones missed. */
  private static final String INCREMENTAL_READING_MISSED = "otherwise than the incremental readings had said";
  /**
   * Guards {@link #shared}. Not the class's monitor: the failsafe ITs run several classes at once, and
   * a thread starting a service of its own (or picking a port) must not wait for the shared one's start.
   */
  private static final Object SHARED = new Object();

  final Path dataDir;
  /** Picked at random when made; picked again if another installation takes one before the first start. */
  int httpPort;
  int temporalPort;
  private boolean startedOnce;
  private final Path log;
  private boolean incrementalReadingMissesExpected;
  private final Map<String, String> extraEnv;
  private Process process;
  /** The Temporal cluster it runs on, in a namespace of its own; null: the dev server it starts itself. */
  private TemporalCluster temporalCluster;
  private String temporalNamespace = "default";

  OrdinalService(String name) throws IOException {
    this(name, Map.of());
  }

  /** @param extraEnv settings for this service (for example {@code ORDINAL_DRIVER}) */
  OrdinalService(String name, Map<String, String> extraEnv) throws IOException {
    this.extraEnv = new java.util.HashMap<>(extraEnv);
    this.dataDir = Path.of("target", "e2e", name + "-" + uniqueStamp()).toAbsolutePath();
    Files.createDirectories(dataDir);
    this.httpPort = freePort();
    this.temporalPort = freePort();
    this.log = dataDir.resolve("service.log");
  }

  private boolean classArchive;
  private Path java;
  private Path jar;

  /** Runs {@code jar} on {@code java} rather than the packaged service on the tests' own JVM. */
  OrdinalService runningOn(Path java, Path jar) {
    this.java = java;
    this.jar = jar;
    return this;
  }

  /**
   * Starts with the class archive ./ordinal server keeps in its data dir (written at each exit:
   * over 100 MiB and a second or two per stop, so only the start-time benchmark wants it).
   */
  OrdinalService withClassArchive() {
    this.classArchive = true;
    return this;
  }

  /** A setting for the next start; null removes it. */
  OrdinalService withEnv(String name, String value) {
    if (value == null) {
      extraEnv.remove(name);
    } else {
      extraEnv.put(name, value);
    }
    return this;
  }

  /**
   * Runs on {@code cluster} (TEMPORAL_ADDRESS) in a namespace of its own, registered before the first
   * start, instead of on an embedded dev server.
   */
  OrdinalService onTemporalCluster(TemporalCluster cluster) {
    this.temporalCluster = cluster;
    this.temporalNamespace = "ordinal-" + dataDir.getFileName();
    extraEnv.put("TEMPORAL_ADDRESS", cluster.address());
    extraEnv.put("TEMPORAL_NAMESPACE", temporalNamespace);
    return this;
  }

  private static long lastStamp;

  /**
   * The current time in milliseconds, but never the same twice in this JVM: test classes run
   * concurrently, and two services made in the same millisecond must not share a data dir.
   */
  private static synchronized long uniqueStamp() {
    lastStamp = Math.max(lastStamp + 1, System.currentTimeMillis());
    return lastStamp;
  }

  /**
   * One service for every test class that does not need its own (started on first use). Classes
   * run concurrently: the first to ask starts it, the others wait for that start.
   */
  static OrdinalService shared() throws Exception {
    synchronized (SHARED) {
      if (shared == null) {
        shared = new OrdinalService("shared");
        if (TemporalCluster.forSharedService()) {
          shared.onTemporalCluster(TemporalCluster.shared());
        }
        shared.start();
        Runtime.getRuntime().addShutdownHook(new Thread(shared::closeNow));
      }
      return shared;
    }
  }

  /** The API as admin, with the token the service wrote on its first start. */
  Api api() {
    return new Api(url(), caCertificate(), tls(), adminToken());
  }

  String url() {
    return "https://127.0.0.1:" + httpPort;
  }

  private Path userCa;

  /** For a service given its own serving certificate: the CA that signed it. */
  OrdinalService trusting(Path ca) {
    this.userCa = ca;
    return this;
  }

  /** The CA that signed the service's certificate, written on its first start (or the user's). */
  Path caCertificate() {
    return userCa != null ? userCa : dataDir.resolve("tls").resolve("ca.crt");
  }

  /** TLS that trusts the service's CA, and nothing else. */
  SSLContext tls() {
    try (var in = Files.newInputStream(caCertificate())) {
      KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
      trusted.load(null, null);
      trusted.setCertificateEntry("ordinal-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trusted);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot trust the service's CA " + caCertificate(), e);
    }
  }

  String adminToken() {
    try {
      return Files.readString(dataDir.resolve("auth").resolve("admin.token")).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("the service has not written its admin token (has it started?)", e);
    }
  }

  synchronized void start() throws Exception {
    if (temporalCluster != null && !startedOnce) {
      temporalCluster.namespace(temporalNamespace);
    }
    List<String> command = new ArrayList<>();
    command.add(java != null ? java.toString() : ProcessHandle.current().info().command().orElse("java"));
    String flags = System.getenv("ORDINAL_JVM_FLAGS");
    if (flags != null && !flags.isBlank()) {
      command.addAll(Arrays.asList(flags.trim().split("\\s+")));
    } else {
      command.addAll(List.of("-Xmx512m", "--add-opens=java.base/java.lang=ALL-UNNAMED"));
    }
    if (!Bench.full()) {
      command.addAll(TEST_JVM_FLAGS);
    }
    // What ./ordinal server adds too, e.g. -XX:StartFlightRecording=filename=/tmp/ordinal-%p.jfr to profile a benchmark.
    String javaOpts = System.getenv("ORDINAL_JAVA_OPTS");
    if (javaOpts != null && !javaOpts.isBlank()) {
      command.addAll(Arrays.asList(javaOpts.trim().split("\\s+")));
    }
    if (classArchive) {
      // As ./ordinal server: the classes a start loaded, archived in the data dir (AppCDS), for the next start.
      command.addAll(List.of("-XX:SharedArchiveFile=" + dataDir.resolve("ordinal.jsa"), "-XX:+AutoCreateSharedArchive"));
      command.addAll(QUIET_CLASS_ARCHIVE);
    } else if (trainingArchive != null) {
      command.add("-XX:ArchiveClassesAtExit=" + trainingArchive);
      command.addAll(QUIET_CLASS_ARCHIVE);
    } else if (java == null) {
      // The suite's services start some 40 times: read-only, the classes one start loaded save each ~3 s.
      testClassArchive().ifPresent(archive -> {
        command.add("-XX:SharedArchiveFile=" + archive);
        command.addAll(QUIET_CLASS_ARCHIVE);
      });
    }
    command.addAll(List.of("-jar", jar != null ? jar.toString() : System.getProperty("ordinal.jar"), "server"));
    for (int attempt = 1; ; attempt++) {
      long logged = Files.exists(log) ? Files.size(log) : 0;
      try {
        launch(command);
        startedOnce = true;
        return;
      } catch (IllegalStateException e) {
        // A port picked free was taken meanwhile (another suite's service on this machine, in another
        // worktree): the service refused it before starting anything. Before the first start nothing
        // knows the ports yet, so new ones will do; after it, a test may hold them: it fails.
        String all = Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "";
        String said = all.substring((int) Math.min(logged, all.length()));
        if (startedOnce || attempt >= 3 || !said.contains("ordinal: port ") || process.isAlive()) {
          throw e;
        }
        httpPort = freePort();
        temporalPort = freePort();
      }
    }
  }

  private void launch(List<String> command) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    var env = builder.environment();
    env.put("ORDINAL_DATA_DIR", dataDir.toString());
    env.put("ORDINAL_HTTP_PORT", Integer.toString(httpPort));
    env.put("ORDINAL_TEMPORAL_PORT", Integer.toString(temporalPort));
    env.put("ORDINAL_TEMPORAL_HEADLESS", "true");
    env.remove("TEMPORAL_ADDRESS");
    env.remove("ORDINAL_DB_URL");
    env.keySet().removeIf(name -> name.startsWith("OTEL_")); // traced only when a test says so
    env.putAll(extraEnv);
    process = builder.start();
    awaitHealthy(Duration.ofSeconds(120));
  }

  /**
   * The suite's services compile with C1 only and collect with the serial collector. A test service
   * lives a minute or two, mostly waiting, while the suite's classes compete for 2 cores. C2's
   * compilations and G1's threads were ~40% of a service's CPU: 7.4 s against 4.5 s for a start and
   * 30 s idle. The checks are the same; ./ordinal bench keeps the JVM's defaults, as ./ordinal server does.
   */
  private static final List<String> TEST_JVM_FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");
  /** A class archive the JVM cannot use (another JDK, another jar) is only slower: no warning in the log. */
  private static final List<String> QUIET_CLASS_ARCHIVE = List.of("-Xlog:cds=off", "-Xlog:cds+dynamic=off");
  private Path trainingArchive;
  private static Optional<Path> testClassArchive;
  /** Guards {@link #testClassArchive}: services starting side by side wait for the one that makes it. */
  private static final Object ARCHIVE = new Object();

  /**
   * The classes a start of the packaged service loads, archived once for the whole run (AppCDS, as
   * ./ordinal server keeps one in its data dir): written by a start and clean stop of a service of
   * its own, then only read, so services that start side by side or get killed never write it. A
   * start without it (archiving failed, or the JVM refuses it) is only slower.
   */
  private static Optional<Path> testClassArchive() {
    synchronized (ARCHIVE) {
      if (testClassArchive == null) {
        Path archive = Path.of(System.getProperty("ordinal.jar") + ".jsa").toAbsolutePath();
        try {
          Files.deleteIfExists(archive);
          OrdinalService training = new OrdinalService("class-archive");
          training.trainingArchive = archive;
          try (training) {
            training.start();
          }
          testClassArchive = Files.exists(archive) ? Optional.of(archive) : Optional.empty();
        } catch (Exception e) {
          System.err.println("no class archive for the test services (they start without one): " + e);
          testClassArchive = Optional.empty();
        }
      }
      return testClassArchive;
    }
  }

  /** Waits until GET /health answers 200 (service, database and Temporal all up). */
  void awaitHealthy(Duration timeout) throws Exception {
    HttpClient client = null;
    Instant deadline = Instant.now().plus(timeout);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("service exited with " + process.exitValue() + "; log:\n" + tail());
      }
      try {
        if (client == null) {
          if (!Files.exists(caCertificate())) {
            Thread.sleep(200);
            continue; // the service writes its CA first thing
          }
          client = HttpClient.newBuilder().sslContext(tls()).build();
        }
        var response = client.send(HttpRequest.newBuilder(URI.create(url() + "/health"))
            .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("service not healthy within " + timeout + "; log:\n" + tail());
  }

  /** The service's JVM (the Temporal dev server is its child; PostgreSQL, started by pg_ctl, is not). */
  ProcessHandle handle() {
    return process.toHandle();
  }

  /**
   * Settings for another instance that shares this one's Temporal dev server and PostgreSQL (the
   * embedded ones), as several Ordinals share theirs: the service's own database and role.
   */
  Map<String, String> sharedInfrastructure() throws IOException {
    return Map.of("TEMPORAL_ADDRESS", temporalAddress(), "TEMPORAL_NAMESPACE", temporalNamespace,
        "ORDINAL_DB_URL", jdbcUrl("ordinal"), "ORDINAL_DB_USER", "ordinal",
        "ORDINAL_DB_PASSWORD", databasePassword("ordinal"),
        "ORDINAL_ENCRYPTION_KEY_FILE", dataDir.resolve("encryption").resolve("keys").toString());
  }

  /** The embedded PostgreSQL's port: line 4 of its postmaster.pid. */
  int databasePort() throws IOException {
    return Integer.parseInt(Files.readAllLines(dataDir.resolve("postgres/postmaster.pid")).get(3).trim());
  }

  String jdbcUrl(String database) throws IOException {
    return "jdbc:postgresql://127.0.0.1:" + databasePort() + "/" + database;
  }

  /**
   * The generated password of the embedded PostgreSQL's role {@code ordinal} (the service's) or
   * {@code superuser} (postgres), from the file the service keeps it in, readable by its user only.
   */
  String databasePassword(String role) throws IOException {
    return Files.readString(dataDir.resolve("auth").resolve("postgres-" + role + ".password")).trim();
  }

  /** The embedded PostgreSQL's postmaster, while it runs. */
  Optional<ProcessHandle> postgres() {
    return fromPidFile(dataDir.resolve("postgres/postmaster.pid"));
  }

  /** The process a pid file (its first line) names, while it runs. */
  static Optional<ProcessHandle> fromPidFile(Path pidFile) {
    try {
      return ProcessHandle.of(Long.parseLong(Files.readAllLines(pidFile).getFirst().trim()));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** SIGKILL: no shutdown hook runs; Temporal and PostgreSQL are orphaned, as after a crash. */
  void kill9() throws InterruptedException {
    process.toHandle().destroyForcibly();
    process.waitFor();
  }

  /** SIGTERM, as Ctrl-C or a service manager would stop it. */
  void stop() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.toHandle().destroy();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    }
  }

  /** Waits up to two minutes for the service's log to hold {@code line}. */
  void awaitLogged(String line) throws InterruptedException, IOException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(120));
    while (Instant.now().isBefore(deadline)) {
      if (Files.readString(log, StandardCharsets.ISO_8859_1).contains(line)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the log never said \"" + line + "\":\n" + tail());
  }

  String tail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Pods outlive the service by design; a test run kills the local pods its service left behind. */
  @Override
  public void close() {
    if (this == shared) {
      // Only the JVM's exit stops it (closeNow). OrdinalServiceExtension gives the shared service to every
      // static OrdinalService field of an @E2eTest class, also to one the class fills with a service of its
      // own in @BeforeAll: when that @BeforeAll failed first, the class's @AfterAll closed the shared
      // service, and every class after it failed (three CI runs).
      System.err.println("OrdinalService: not closing the shared service, which stops when the tests' JVM exits");
      return;
    }
    closeNow();
  }

  private void closeNow() {
    recordHistories();
    try {
      stop();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    killLocalPods();
    assertNoIncrementalReadingMissed();
  }

  /** For a test that makes a change the incremental readings cannot see. */
  void expectIncrementalReadingMisses() {
    incrementalReadingMissesExpected = true;
  }

  /** The service's log so far. */
  String log() throws IOException {
    return Files.readString(log);
  }

  /**
   * Fails when a workflow's complete reading found a pod otherwise than its incremental readings had
   * said (Steps logs it): the periodic complete reading would repair it, so without this check such a
   * bug would only make tests slower.
   */
  void assertNoIncrementalReadingMissed() {
    if (incrementalReadingMissesExpected) {
      return;
    }
    try (var lines = Files.lines(log)) {
      List<String> missed = lines.filter(line -> line.contains(INCREMENTAL_READING_MISSED)).toList();
      if (!missed.isEmpty()) {
        throw new AssertionError("incremental readings missed changes:\n" + String.join("\n", missed));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * With {@code -Dordinal.recordHistories=<dir>}, saves the history of every workflow of this
   * service (running ones up to now) as JSON, the input of the replay (determinism) tests.
   */
  void recordHistories() {
    String dir = System.getProperty("ordinal.recordHistories");
    if (dir == null || dir.isBlank() || process == null || !process.isAlive()) {
      return;
    }
    withTemporal(client -> {
      client.listExecutions("").forEach(execution -> {
        String id = execution.getExecution().getWorkflowId();
        String json = client.fetchHistory(id, execution.getExecution().getRunId()).toJson(true);
        try {
          Path target = Files.createDirectories(Path.of(dir));
          Files.writeString(target.resolve(id.replace('/', '_') + "_" + execution.getExecution().getRunId() + ".json"), json);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
      return null;
    });
  }

  /** The frontend of its Temporal: the dev server it starts, or the cluster it was put on. */
  String temporalAddress() {
    return temporalCluster != null ? temporalCluster.address() : "127.0.0.1:" + temporalPort;
  }

  /** Runs {@code use} with a client of this service's Temporal (dev server or cluster) and namespace. */
  <T> T withTemporal(Function<WorkflowClient, T> use) {
    var stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(temporalAddress()).build());
    try {
      return use.apply(WorkflowClient.newInstance(stubs, WorkflowClientOptions.newBuilder().setNamespace(temporalNamespace)
          .setDataConverter(LargePayloadCodec.dataConverter()).build()));
    } finally {
      stubs.shutdown();
    }
  }

  /**
   * The containers this service's OCI runtime runs (its own state dir, so no other service's): id,
   * first process (host pid) and bundle. Sandboxes included.
   */
  List<JsonNode> localContainers() {
    Path root = dataDir.resolve("local/runc");
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try {
      String json = Command.run(Duration.ofSeconds(30), "runc", "--root", root.toString(), "list", "--format", "json").out();
      List<JsonNode> containers = new ArrayList<>();
      KubeJson.JSON.readTree(json.isBlank() ? "[]" : json).forEach(containers::add);
      return containers;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The host pid of a local pod's container, by the containerID its status shows ({@code runc://<id>}),
   * once its runtime runs it. The status names the container as soon as the service has started its
   * runtime ({@code runc run}), which lists it (created, then running) only a moment later: longer on
   * a busy machine, as when test classes run side by side. Until then the pid would be none, or the
   * runtime's own init process, not yet the container's.
   */
  long containerPid(String containerId) {
    String id = containerId.substring("runc://".length());
    Instant deadline = Instant.now().plusSeconds(30);
    while (true) {
      Optional<JsonNode> container = localContainers().stream().filter(c -> c.path("id").asText().equals(id)).findFirst();
      if (container.isPresent() && container.get().path("status").asText().equals("running")) {
        return container.get().path("pid").asLong();
      }
      if (Instant.now().isAfter(deadline)) {
        throw new AssertionError("no running container " + id + " in the runtime: "
            + container.map(JsonNode::toString).orElse("not listed"));
      }
      Api.sleep(100);
    }
  }

  /**
   * Which processes belong to this service's local pods: live (not zombie) ones in the cgroup of one
   * of the containers (not sandboxes) its runtime runs now. The runtime is asked once, here.
   */
  Predicate<ProcessHandle> localPodProcesses() {
    Set<String> cgroups = new HashSet<>();
    for (JsonNode container : localContainers()) {
      try {
        JsonNode config = KubeJson.JSON.readTree(Path.of(container.path("bundle").asText(), "config.json").toFile());
        if (!config.at("/process/args/0").asText().endsWith("catatonit")) {
          cgroups.add(config.at("/linux/cgroupsPath").asText());
        }
      } catch (IOException e) {
        // removed meanwhile
      }
    }
    return process -> {
      if (!ProcStat.running(process)) {
        return false;
      }
      try {
        return Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "cgroup")).stream()
            .map(line -> line.substring(line.indexOf(':', line.indexOf(':') + 1) + 1))
            .anyMatch(cgroups::contains);
      } catch (IOException | RuntimeException e) {
        return false;
      }
    };
  }

  /** Removes every container of this service's runtime, with what runs in it, and its pods' network namespaces. */
  void killLocalPods() {
    for (JsonNode container : localContainers()) {
      try {
        Command.run(Duration.ofMinutes(1), "runc", "--root", dataDir.resolve("local/runc").toString(), "delete", "--force",
            container.path("id").asText());
        JsonNode config = KubeJson.JSON.readTree(Path.of(container.path("bundle").asText(), "config.json").toFile());
        for (JsonNode namespace : config.at("/linux/namespaces")) {
          if (namespace.path("type").asText().equals("network") && namespace.path("path").asText().startsWith("/run/netns/")) {
            Command.run(Duration.ofSeconds(30), "ip", "netns", "delete",
                Path.of(namespace.path("path").asText()).getFileName().toString());
          }
        }
      } catch (IOException e) {
        // gone meanwhile
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    unmountBelowDataDir();
  }

  /**
   * The binds the driver made below the data dir (a subPath's, kept for its pod's next start) outlive
   * a pod killed here rather than deleted: they are undone, deepest first, so no test leaves a mount
   * on the machine.
   */
  private void unmountBelowDataDir() {
    try {
      String below = dataDir.toAbsolutePath().normalize() + "/";
      List<String> mounts = new ArrayList<>();
      for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
        String point = line.split(" ")[4];
        if (point.startsWith(below)) {
          mounts.add(point);
        }
      }
      mounts.sort(Comparator.comparingInt(String::length).reversed());
      for (String point : mounts) {
        Command.run(Duration.ofSeconds(30), "umount", point);
      }
    } catch (IOException e) {
      // nothing to read: nothing mounted
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Every port {@link #freePort} gave out in this JVM, never given again: a port is free when picked
   * but bound only later (a service binds its ports seconds after), and the test classes run
   * concurrently, so another class could otherwise pick it in between.
   */
  private static final Set<Integer> HANDED_OUT = new HashSet<>();

  /**
   * A free port below Linux's ephemeral range (32768 and up): the Temporal dev server binds random
   * ephemeral ports of its own (HTTP API, metrics) after this port is chosen and before the service
   * binds it, and once took it (ApiFuzzIT: "Port already in use").
   */
  static int freePort() throws IOException {
    synchronized (HANDED_OUT) {
      for (int attempt = 0; attempt < 1_000; attempt++) {
        int port = ThreadLocalRandom.current().nextInt(20_000, 32_000);
        if (HANDED_OUT.contains(port)) {
          continue;
        }
        try (ServerSocket socket = new ServerSocket(port)) {
          HANDED_OUT.add(port);
          return socket.getLocalPort();
        } catch (IOException taken) {
          // try another
        }
      }
    }
    throw new IOException("no free port in 20000-32000");
  }
}
