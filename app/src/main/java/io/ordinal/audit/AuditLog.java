package io.ordinal.audit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.rolling.FixedWindowRollingPolicy;
import ch.qos.logback.core.rolling.RollingFileAppender;
import ch.qos.logback.core.rolling.SizeBasedTriggeringPolicy;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusListener;
import ch.qos.logback.core.util.Duration;
import ch.qos.logback.core.util.FileSize;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Value;
import jakarta.annotation.PreDestroy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/**
 * The audit log backend (upstream's --audit-log-path, -maxsize, -maxbackup): one JSON event per line,
 * appended to {@code <data dir>/audit/audit.log} (file 0600, directory 0700), rolled over by size to
 * {@code audit.log.1} ... {@code audit.log.<backups>} (the oldest dropped). Events are written by one
 * thread of their own, so a slow disk never holds up the Netty event loop; closing the bean (an
 * orderly shutdown) writes every queued event before it returns.
 *
 * <p>Logback does the writing and the rotation, in a logger context of its own: the service's
 * logback.xml (console) never sees an audit event, and the audit file never sees a service log line.
 * Created at start-up ({@code @Context}), so that a log that cannot be opened stops the start.
 */
@Context
public class AuditLog implements AutoCloseable {
  /** Logback's FixedWindowRollingPolicy keeps at most 20 backups. */
  static final int MAX_BACKUPS = 20;
  private static final org.slf4j.Logger log = LoggerFactory.getLogger(AuditLog.class);

  private final LoggerContext context = new LoggerContext();
  private final Logger writer;
  private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "audit-log");
    t.setDaemon(true);
    return t;
  });
  private final String where;

  public AuditLog(@Value("${ordinal.data-dir:var}") String dataDir) {
    this(settings(System.getenv(), Path.of(dataDir)));
  }

  /** Where the log goes ({@code path} null: stdout) and how large it may grow. */
  public record Settings(Path path, long maxSizeBytes, int maxBackups) {}

  /** ORDINAL_AUDIT_LOG_PATH ({@code -}: stdout), ORDINAL_AUDIT_LOG_MAX_SIZE_MB (100), ORDINAL_AUDIT_LOG_MAX_BACKUPS (10). */
  static Settings settings(Map<String, String> env, Path dataDir) {
    String path = env.getOrDefault("ORDINAL_AUDIT_LOG_PATH", "");
    long megabytes = Long.parseLong(env.getOrDefault("ORDINAL_AUDIT_LOG_MAX_SIZE_MB", "100").trim());
    int backups = Integer.parseInt(env.getOrDefault("ORDINAL_AUDIT_LOG_MAX_BACKUPS", "10").trim());
    return new Settings(path.equals("-") ? null
        : path.isBlank() ? dataDir.resolve("audit").resolve("audit.log") : Path.of(path).toAbsolutePath(),
        megabytes * 1024 * 1024, backups);
  }

  public AuditLog(Settings settings) {
    context.setName("audit");
    context.setMDCAdapter(new LogbackMDCAdapter());
    // Logback reports a failing write (a full disk) as a status, not an exception: into the service's log.
    context.getStatusManager().add((StatusListener) status -> {
      if (status.getLevel() >= Status.WARN) {
        log.warn("audit log: {}", status);
      }
    });
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    OutputStreamAppender<ILoggingEvent> appender = settings.path() == null ? new ConsoleAppender<>()
        : rollingFile(settings, encoder);
    appender.setContext(context);
    appender.setName("audit");
    appender.setEncoder(encoder);
    appender.start();
    if (!appender.isStarted()) {
      throw new IllegalStateException("cannot open the audit log " + settings.path() + ": " + context.getStatusManager()
          .getCopyOfStatusList());
    }
    writer = context.getLogger("audit");
    writer.setAdditive(false);
    writer.setLevel(Level.INFO);
    writer.addAppender(appender);
    where = settings.path() == null ? "stdout" : settings.path().toString();
    log.info("audit log: {}", where);
  }

  private RollingFileAppender<ILoggingEvent> rollingFile(Settings settings, PatternLayoutEncoder encoder) {
    Path file = settings.path();
    try {
      Path dir = file.getParent();
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the audit log's directory for " + file, e);
    }
    RollingFileAppender<ILoggingEvent> appender = new PrivateRollingFileAppender();
    appender.setContext(context);
    appender.setFile(file.toString());
    appender.setAppend(true);
    FixedWindowRollingPolicy rolling = new FixedWindowRollingPolicy();
    rolling.setContext(context);
    rolling.setParent(appender);
    rolling.setFileNamePattern(file + ".%i");
    rolling.setMinIndex(1);
    int backups = Math.max(1, Math.min(MAX_BACKUPS, settings.maxBackups()));
    if (backups != settings.maxBackups()) {
      log.warn("ORDINAL_AUDIT_LOG_MAX_BACKUPS={} is out of range; keeping {} backups", settings.maxBackups(), backups);
    }
    rolling.setMaxIndex(backups);
    rolling.start();
    SizeBasedTriggeringPolicy<ILoggingEvent> trigger = new SizeBasedTriggeringPolicy<>();
    trigger.setContext(context);
    trigger.setMaxFileSize(new FileSize(settings.maxSizeBytes()));
    // Logback looks at the file's size at most this often: a cheap stat, and the cap holds closely.
    trigger.setCheckIncrement(Duration.buildByMilliseconds(10));
    trigger.start();
    appender.setRollingPolicy(rolling);
    appender.setTriggeringPolicy(trigger);
    return appender;
  }

  /** Queues the event; the writer thread serialises and appends it. */
  public void write(AuditEvent event) {
    try {
      thread.execute(() -> append(event));
    } catch (RejectedExecutionException closing) {
      append(event); // a response that completed during shutdown: written here, before the appender stops
    }
  }

  private void append(AuditEvent event) {
    try {
      writer.info(event.toJson());
    } catch (RuntimeException e) {
      log.error("could not write audit event {}", event.auditId(), e);
    }
  }

  /** Writes what is queued, then closes the file. */
  @PreDestroy
  @Override
  public void close() {
    thread.shutdown();
    try {
      if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
        log.warn("audit log: events still queued after 30 s at shutdown");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    context.stop();
  }

  /** A rolling file appender whose files (the first one and each new one after a rollover) are created 0600. */
  private static final class PrivateRollingFileAppender extends RollingFileAppender<ILoggingEvent> {
    @Override
    public void openFile(String fileName) throws IOException {
      try {
        Files.createFile(Path.of(fileName), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (FileAlreadyExistsException e) {
        // appending to the existing log
      }
      super.openFile(fileName);
    }
  }
}
