package io.ordinal.runtime;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * What the service needs before Micronaut starts: PostgreSQL and Temporal, embedded unless
 * {@code ORDINAL_DB_URL} / {@code TEMPORAL_ADDRESS} point elsewhere. Yields the Micronaut
 * properties that connect to them.
 */
public final class EmbeddedRuntime implements AutoCloseable {
  private final FileChannel dataDirLock;
  private final EmbeddedPostgresServer postgres;
  private final TemporalDevServer temporal;
  private final Map<String, Object> properties;
  private final String webUi;
  private final HttpServer codec;

  private EmbeddedRuntime(FileChannel dataDirLock, EmbeddedPostgresServer postgres, TemporalDevServer temporal,
      Map<String, Object> properties, String webUi, HttpServer codec) {
    this.dataDirLock = dataDirLock;
    this.postgres = postgres;
    this.temporal = temporal;
    this.properties = properties;
    this.webUi = webUi;
    this.codec = codec;
  }

  public static EmbeddedRuntime start(Settings settings) throws IOException, InterruptedException {
    Files.createDirectories(settings.dataDir());
    FileChannel dataDirLock = lockDataDir(settings.dataDir());
    try {
      if (settings.temporalAddress() == null) {
        TemporalDevServer.stopOrphan(settings); // a killed run's, on this installation's own ports
      }
      checkPortsFree(settings);
    } catch (InUseException | RuntimeException e) {
      dataDirLock.close();
      throw e;
    }
    Map<String, Object> props = new HashMap<>();
    props.put("micronaut.server.host", settings.bindAddress());
    // HTTPS only, on the API's port: tokens never cross a connection in the clear. The certificates
    // come from TlsCertificates (made on first start, renewed while running); client certificates are
    // asked for, not required (a token will do).
    props.put("micronaut.server.ssl.enabled", true);
    props.put("micronaut.server.ssl.build-self-signed", false);
    props.put("micronaut.server.ssl.port", settings.httpPort());
    props.put("micronaut.server.ssl.key-name", TlsCertificates.NAME);
    props.put("micronaut.server.ssl.trust-name", TlsCertificates.NAME);
    props.put("micronaut.server.ssl.client-authentication", "want");
    // HTTP/2 (ALPN, HTTP/1.1 still served): clients such as kubectl and Java's HttpClient multiplex
    // their requests and watches over one connection instead of paying a TLS handshake per request.
    props.put("micronaut.server.http-version", "2.0");
    // Protects the in-memory key store's entry only; a new one at every start.
    props.put("micronaut.server.ssl.key.password", java.util.HexFormat.of().formatHex(new java.security.SecureRandom().generateSeed(16)));
    putIfSet(props, "ordinal.tls.cert-file", settings.tlsCertFile());
    putIfSet(props, "ordinal.tls.key-file", settings.tlsKeyFile());
    putIfSet(props, "ordinal.tls.client-ca-file", settings.clientCaFile());
    props.put("ordinal.data-dir", settings.dataDir().toString());
    props.put("temporal.namespace", settings.temporalNamespace());
    EmbeddedPostgresServer postgres = null;
    TemporalDevServer temporal = null;
    HttpServer codec = null;
    try {
      if (settings.dbUrl() == null) {
        postgres = EmbeddedPostgresServer.start(settings.dataDir(), settings.embeddedDbFsync());
        props.put("datasources.default.url", postgres.jdbcUrl());
        props.put("datasources.default.username", postgres.user());
        props.put("datasources.default.password", postgres.password());
      } else {
        props.put("datasources.default.url", settings.dbUrl());
        props.put("datasources.default.username", settings.dbUser());
        props.put("datasources.default.password", settings.dbPassword());
      }
      String webUi = null;
      if (settings.temporalAddress() == null) {
        if (!settings.temporalHeadless()) {
          // A caller that sends its request or reads its answer slowly would hold one of the codec's two
          // permits for as long as it likes: the JDK's server cuts a connection off after this many
          // seconds (its documented properties, read once, when the first server is made).
          System.setProperty("sun.net.httpserver.maxReqTime", System.getProperty("sun.net.httpserver.maxReqTime", "30"));
          System.setProperty("sun.net.httpserver.maxRspTime", System.getProperty("sun.net.httpserver.maxRspTime", "30"));
          // The Web UI's codec listener (LoopbackCodecListener), bound now so that the dev server is
          // given a port that is ours: with the default 0 the kernel picks a free one, so installations
          // side by side never collide and no other process can hold the port the UI will post
          // payloads to. Served once the service's context is up (connections wait until then).
          try {
            codec = HttpServer.create(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), settings.codecPort()), 0);
          } catch (IOException e) {
            throw new IOException("cannot listen on 127.0.0.1:" + settings.codecPort()
                + " for the Web UI's codec (ORDINAL_CODEC_PORT; 0, the default, takes a free port)", e);
          }
        }
        temporal = TemporalDevServer.start(settings, codec == null ? 0 : codec.getAddress().getPort());
        props.put("temporal.address", "127.0.0.1:" + settings.temporalPort());
        props.put("ordinal.temporal.embedded", true);
        webUi = settings.temporalHeadless() ? null : "http://localhost:" + settings.temporalUiPort();
      } else {
        props.put("temporal.address", settings.temporalAddress());
        props.putAll(settings.temporalTls());
      }
      return new EmbeddedRuntime(dataDirLock, postgres, temporal, props, webUi, codec);
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (codec != null) {
        codec.stop(0);
      }
      closeQuietly(temporal);
      closeQuietly(postgres);
      closeQuietly(dataDirLock);
      throw e;
    }
  }

  /**
   * The data dir for this service alone, while it runs (the kernel lets go when it dies, however it
   * dies). A second service on the same data dir would take the first one's PostgreSQL and Temporal
   * for orphans of a killed run and stop them, then run the same pods, runtime state and network
   * block as its own.
   */
  static FileChannel lockDataDir(Path dataDir) throws IOException {
    FileChannel channel = FileChannel.open(dataDir.resolve("service.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // this JVM holds it already
    }
    if (lock == null) {
      channel.close();
      throw new InUseException("the data dir " + dataDir + " is in use by another running service: give this one"
          + " a data dir of its own (ORDINAL_DATA_DIR) and free ports, or stop that one first");
    }
    return channel;
  }

  /** A port this installation listens on, the variable that moves it, and what else would do. */
  record Port(String host, int port, String what, String variable, String otherwise) {}

  /** The fixed ports this installation would listen on (PostgreSQL and Temporal's others pick free ones). */
  static List<Port> ports(Settings settings) {
    List<Port> ports = new ArrayList<>();
    ports.add(new Port(settings.bindAddress(), settings.httpPort(), "the API", "ORDINAL_HTTP_PORT", ""));
    if (settings.temporalAddress() == null) {
      ports.add(new Port("127.0.0.1", settings.temporalPort(), "the embedded Temporal dev server", "ORDINAL_TEMPORAL_PORT",
          ", or TEMPORAL_ADDRESS to use a Temporal of your own"));
      if (!settings.temporalHeadless()) {
        ports.add(new Port("127.0.0.1", settings.temporalUiPort(), "the Temporal Web UI", "ORDINAL_TEMPORAL_UI_PORT",
            ", or ORDINAL_TEMPORAL_HEADLESS=true for none"));
      }
    }
    return ports;
  }

  /**
   * Refuses to start, before anything else has, when one of this installation's fixed ports is
   * taken: most likely by another installation on this machine. Else the dev server would exit at
   * once while the service found the other one's Temporal on that port and ran its workflows (with
   * the same node name, its pods' steps too) against this data dir's database.
   */
  static void checkPortsFree(Settings settings) throws InUseException {
    for (Port port : ports(settings)) {
      if (port.port() == 0) {
        continue; // any free one
      }
      try (ServerSocket probe = new ServerSocket()) {
        probe.bind(new InetSocketAddress(InetAddress.getByName(port.host()), port.port()));
      } catch (IOException e) {
        throw new InUseException("port " + port.port() + " on " + port.host() + " (" + port.what()
            + ") is in use, by another installation of Ordinal on this machine or another program: set "
            + port.variable() + " to a free port for this one" + port.otherwise() + " (" + e.getMessage() + ")");
      }
    }
  }

  /**
   * A fixed port of this installation's is taken, or its data dir is another running service's: the
   * message names which, and the variable to set.
   */
  public static final class InUseException extends IOException {
    InUseException(String message) {
      super(message);
    }
  }

  private static void putIfSet(Map<String, Object> props, String key, Object value) {
    if (value != null) {
      props.put(key, value.toString());
    }
  }

  public Map<String, Object> properties() {
    return properties;
  }

  /** The Temporal Web UI, when this runtime started the dev server with one. */
  public String webUi() {
    return webUi;
  }

  /** The Web UI's codec listener, bound to loopback and not yet serving; null without the embedded Web UI. */
  public HttpServer codec() {
    return codec;
  }

  @Override
  public void close() {
    if (codec != null) {
      codec.stop(0);
    }
    closeQuietly(temporal);
    closeQuietly(postgres);
    closeQuietly(dataDirLock);
  }

  private static void closeQuietly(AutoCloseable closeable) {
    if (closeable != null) {
      try {
        closeable.close();
      } catch (Exception e) {
        LoggerFactory.getLogger(EmbeddedRuntime.class).warn("error while stopping {}", closeable, e);
      }
    }
  }
}
