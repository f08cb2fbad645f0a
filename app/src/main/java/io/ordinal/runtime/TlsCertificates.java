package io.ordinal.runtime;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.ssl.CertificateProvider;
import io.micronaut.scheduling.annotation.Scheduled;
import jakarta.inject.Named;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Sinks;

/**
 * The HTTPS server's certificate material, as Micronaut's {@link CertificateProvider}: the serving
 * key and chain, and the client CAs whose certificates name users. Checked while running (every
 * {@code ordinal.tls.check-interval}): a generated serving certificate near expiry is made anew,
 * and a user's certificate files that changed on disk (cert-manager renewing them, say) are read
 * again; either way new connections get the new certificate without a restart.
 */
@Singleton
@Named(TlsCertificates.NAME)
public class TlsCertificates implements CertificateProvider {
  public static final String NAME = "ordinal";
  private static final Logger log = LoggerFactory.getLogger(TlsCertificates.class);

  private final Path dataDir;
  private final String bindAddress;
  private final Path userCert;
  private final Path userKey;
  private final Path userClientCa;
  private final String keyPassword;
  private final Sinks.Many<KeyStore> keys = Sinks.many().replay().latest();
  private final KeyStore trust;
  private volatile X509Certificate serving;

  public TlsCertificates(@Value("${ordinal.data-dir}") String dataDir,
      @Value("${micronaut.server.host:127.0.0.1}") String bindAddress,
      @Value("${micronaut.server.ssl.key.password}") String keyPassword,
      @Nullable @Value("${ordinal.tls.cert-file:}") String userCert,
      @Nullable @Value("${ordinal.tls.key-file:}") String userKey,
      @Nullable @Value("${ordinal.tls.client-ca-file:}") String userClientCa) throws IOException, GeneralSecurityException {
    this.dataDir = Path.of(dataDir);
    this.bindAddress = bindAddress;
    this.keyPassword = keyPassword;
    this.userCert = path(userCert);
    this.userKey = path(userKey);
    this.userClientCa = path(userClientCa);
    this.trust = ServingTls.clientTrust(this.dataDir, this.userClientCa);
    ServingTls.Serving first = ServingTls.ensure(this.dataDir, bindAddress, this.userCert, this.userKey, keyPassword);
    serving = first.certificate();
    keys.tryEmitNext(first.keyStore());
  }

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public Publisher<KeyStore> getKeyStore() {
    return keys.asFlux();
  }

  @Override
  public Publisher<KeyStore> getTrustStore() {
    return reactor.core.publisher.Mono.just(trust);
  }

  /** The certificate new connections are served. */
  public X509Certificate serving() {
    return serving;
  }

  @Scheduled(fixedDelay = "${ordinal.tls.check-interval:1h}", initialDelay = "${ordinal.tls.check-interval:1h}")
  void renewIfDue() {
    try {
      ServingTls.Serving current = ServingTls.ensure(dataDir, bindAddress, userCert, userKey, keyPassword);
      if (!current.certificate().equals(serving)) {
        serving = current.certificate();
        keys.tryEmitNext(current.keyStore());
        log.info("serving certificate replaced: serial {}, valid until {}", serving.getSerialNumber().toString(16),
            serving.getNotAfter().toInstant());
      }
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      log.warn("serving certificate check failed, keeping the current one: {}", e.toString());
    }
  }

  private static Path path(String value) {
    return value == null || value.isBlank() ? null : Path.of(value);
  }
}
