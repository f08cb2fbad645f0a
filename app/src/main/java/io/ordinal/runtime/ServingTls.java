package io.ordinal.runtime;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The API is HTTPS only. Unless the user brings a certificate ({@code ORDINAL_TLS_CERT_FILE} and
 * {@code ORDINAL_TLS_KEY_FILE}, PEM), the service is its own CA: on first start it makes a CA
 * (10 years) and a serving certificate it signs (1 year, for localhost, the loopback addresses, this
 * host's name and the bind address) under {@code <data dir>/tls/}, keys readable by their owner only.
 * A serving certificate with less than 30 days left, or without a name it now needs, is made anew
 * (at start and by {@link TlsCertificates} while running). Clients trust {@code ca.crt}
 * ({@code ./ordinal kubeconfig} embeds it).
 *
 * <p>Client certificates are signed by a second CA, {@code client-ca.crt} (upstream's
 * {@code --client-ca-file}; {@code ORDINAL_CLIENT_CA_FILE} to trust another one instead): its own
 * CA, so that no serving certificate can pass for a user.
 */
public final class ServingTls {
  private static final Duration CA_VALIDITY = Duration.ofDays(3650);
  private static final Duration SERVING_VALIDITY = Duration.ofDays(365);
  private static final Duration RENEW_BEFORE = Duration.ofDays(30);
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final SecureRandom RANDOM = new SecureRandom();

  /** The serving key and chain as a key store (entry "ordinal", key password {@code password}). */
  public record Serving(KeyStore keyStore, X509Certificate certificate) {}

  /** A client certificate and its key, PEM. */
  public record ClientCertificate(String certificatePem, String keyPem) {}

  private ServingTls() {}

  /**
   * The serving certificate, made or renewed first if need be. {@code password} protects the key
   * entry of the (in-memory) store only.
   */
  public static Serving ensure(Path dataDir, String bindAddress, Path userCert, Path userKey, String password)
      throws IOException, GeneralSecurityException {
    Path dir = tlsDir(dataDir);
    // Earlier versions kept a PKCS#12 copy of the serving key here; the store is in memory now.
    Files.deleteIfExists(dir.resolve("serving.p12"));
    X509Certificate serving;
    PrivateKey servingKey;
    List<X509Certificate> chain = new ArrayList<>();
    if (userCert != null && userKey != null) {
      chain.addAll(readCertificates(Files.readString(userCert)));
      serving = chain.getFirst();
      servingKey = readKey(Files.readString(userKey));
    } else {
      Set<String> names = servingNames(bindAddress);
      Authority ca = authority(dir, "ca", "ordinal-ca");
      Path certFile = dir.resolve("serving.crt");
      Path keyFile = dir.resolve("serving.key");
      if (!Files.exists(certFile) || !Files.exists(keyFile)
          || needsRenewal(readCertificate(Files.readString(certFile)), names, Instant.now())) {
        KeyPair pair = newKeyPair();
        X509Certificate cert = sign(new X500Name("CN=ordinal"), pair, ca, SERVING_VALIDITY,
            KeyPurposeId.id_kp_serverAuth, names);
        writeSecret(keyFile, pem(pair.getPrivate()));
        write(certFile, pem(cert) + pem(ca.certificate()));
      }
      serving = readCertificate(Files.readString(certFile));
      servingKey = readKey(Files.readString(keyFile));
      chain.add(serving);
      chain.add(ca.certificate());
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("ordinal", servingKey, password.toCharArray(), chain.toArray(X509Certificate[]::new));
    return new Serving(store, serving);
  }

  /**
   * The CAs whose client certificates are users: {@code userClientCa} (PEM, one or more) when given,
   * else the service's own client CA, made on first start.
   */
  public static KeyStore clientTrust(Path dataDir, Path userClientCa) throws IOException, GeneralSecurityException {
    return userClientCa != null ? trustStore(userClientCa)
        : trustStore(List.of(authority(tlsDir(dataDir), "client-ca", "ordinal-client-ca").certificate()));
  }

  /** A trust store of the CA certificates in a PEM file (one or more). */
  public static KeyStore trustStore(Path pemFile) throws IOException, GeneralSecurityException {
    return trustStore(readCertificates(Files.readString(pemFile)));
  }

  private static KeyStore trustStore(List<X509Certificate> cas) throws IOException, GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (int i = 0; i < cas.size(); i++) {
      store.setCertificateEntry("ca-" + i, cas.get(i));
    }
    return store;
  }

  /**
   * A client certificate for {@code user} in {@code groups} (CN and O, as Kubernetes reads them),
   * signed by the service's own client CA.
   */
  public static ClientCertificate issueClientCertificate(Path dataDir, String user, List<String> groups, Duration validity)
      throws IOException, GeneralSecurityException {
    Authority ca = authority(tlsDir(dataDir), "client-ca", "ordinal-client-ca");
    X500NameBuilder subject = new X500NameBuilder(BCStyle.INSTANCE);
    for (String group : groups) {
      subject.addRDN(BCStyle.O, group);
    }
    subject.addRDN(BCStyle.CN, user);
    KeyPair pair = newKeyPair();
    X509Certificate cert = sign(subject.build(), pair, ca, validity, KeyPurposeId.id_kp_clientAuth, Set.of());
    return new ClientCertificate(pem(cert), pem(pair.getPrivate()));
  }

  private record Authority(X509Certificate certificate, PrivateKey key) {}

  /** The CA {@code <name>.crt}/{@code <name>.key} in {@code dir}, made when either file is missing. */
  private static Authority authority(Path dir, String name, String commonName) throws IOException, GeneralSecurityException {
    Path certFile = dir.resolve(name + ".crt");
    Path keyFile = dir.resolve(name + ".key");
    if (!Files.exists(certFile) || !Files.exists(keyFile)) {
      KeyPair pair = newKeyPair();
      X500Name subject = new X500Name("CN=" + commonName);
      X509Certificate cert = sign(subject, pair, new Authority(null, pair.getPrivate()), subject, CA_VALIDITY, null, Set.of());
      writeSecret(keyFile, pem(pair.getPrivate()));
      write(certFile, pem(cert));
    }
    return new Authority(readCertificate(Files.readString(certFile)), readKey(Files.readString(keyFile)));
  }

  private static Path tlsDir(Path dataDir) throws IOException {
    Path dir = dataDir.resolve("tls");
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    return dir;
  }

  /** The names the serving certificate must carry: DNS names, and IP addresses written as such. */
  static Set<String> servingNames(String bindAddress) {
    Set<String> names = new LinkedHashSet<>(List.of("localhost", "127.0.0.1", "::1"));
    try {
      names.add(InetAddress.getLocalHost().getHostName());
    } catch (IOException e) {
      // no resolvable host name: localhost will do
    }
    if (!bindAddress.equals("0.0.0.0") && !bindAddress.equals("::")) {
      names.add(bindAddress);
    }
    return names;
  }

  static boolean needsRenewal(X509Certificate cert, Set<String> names, Instant now) throws GeneralSecurityException {
    if (cert.getNotAfter().toInstant().isBefore(now.plus(RENEW_BEFORE))) {
      return true;
    }
    Set<String> present = new LinkedHashSet<>();
    if (cert.getSubjectAlternativeNames() != null) {
      cert.getSubjectAlternativeNames().forEach(san -> present.add(String.valueOf(san.get(1))));
    }
    for (String name : names) {
      if (!present.contains(name) && !(isIp(name) && present.stream().anyMatch(p -> sameAddress(p, name)))) {
        return true;
      }
    }
    return false;
  }

  /** A leaf certificate for {@code purpose} (server or client auth) signed by {@code issuer}. */
  private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, Authority issuer, Duration validity,
      KeyPurposeId purpose, Set<String> names) throws GeneralSecurityException, IOException {
    return sign(subject, subjectKeys, issuer, X500Name.getInstance(issuer.certificate().getSubjectX500Principal().getEncoded()),
        validity, purpose, names);
  }

  /** {@code purpose} null makes a CA certificate. */
  private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, Authority issuer, X500Name issuerName,
      Duration validity, KeyPurposeId purpose, Set<String> names) throws GeneralSecurityException, IOException {
    Instant now = Instant.now();
    var builder = new JcaX509v3CertificateBuilder(issuerName, new BigInteger(127, RANDOM),
        Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(validity)), subject, subjectKeys.getPublic());
    var extensions = new JcaX509ExtensionUtils();
    builder.addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(subjectKeys.getPublic()));
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(purpose == null));
    if (purpose == null) {
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } else {
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      if (!names.isEmpty()) {
        builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.stream()
            .map(n -> new GeneralName(isIp(n) ? GeneralName.iPAddress : GeneralName.dNSName, n))
            .toArray(GeneralName[]::new)));
      }
    }
    X509CertificateHolder holder;
    try {
      holder = builder.build(new JcaContentSignerBuilder(SIGNATURE).build(issuer.key()));
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign with " + SIGNATURE, e);
    }
    return new JcaX509CertificateConverter().getCertificate(holder);
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return generator.generateKeyPair();
  }

  private static boolean isIp(String name) {
    return name.matches("[0-9.]+") || name.contains(":");
  }

  private static boolean sameAddress(String a, String b) {
    try {
      return isIp(a) && InetAddress.getByName(a).equals(InetAddress.getByName(b));
    } catch (IOException e) {
      return false;
    }
  }

  static X509Certificate readCertificate(String pem) throws IOException, GeneralSecurityException {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      Object object = parser.readObject();
      if (!(object instanceof X509CertificateHolder holder)) {
        throw new GeneralSecurityException("not a PEM certificate");
      }
      return new JcaX509CertificateConverter().getCertificate(holder);
    }
  }

  /** Every certificate of a PEM bundle, in order (a chain, or several CAs). */
  static List<X509Certificate> readCertificates(String pem) throws IOException, GeneralSecurityException {
    List<X509Certificate> certificates = new ArrayList<>();
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      for (Object object = parser.readObject(); object != null; object = parser.readObject()) {
        if (object instanceof X509CertificateHolder holder) {
          certificates.add(new JcaX509CertificateConverter().getCertificate(holder));
        }
      }
    }
    if (certificates.isEmpty()) {
      throw new GeneralSecurityException("no PEM certificate");
    }
    return certificates;
  }

  static PrivateKey readKey(String pem) throws IOException, GeneralSecurityException {
    try (PEMParser parser = new PEMParser(new StringReader(pem))) {
      Object object = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (object instanceof PEMKeyPair pair) {
        return converter.getPrivateKey(pair.getPrivateKeyInfo()); // its public half may be absent (SEC1)
      }
      if (object instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
      throw new GeneralSecurityException("not a PEM private key (PKCS#1, SEC1 or PKCS#8)");
    }
  }

  private static String pem(Object object) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      // A key as PKCS#8 ("PRIVATE KEY"), which every tool and the JDK read back.
      writer.writeObject(object instanceof PrivateKey key ? new JcaPKCS8Generator(key, null) : object);
    }
    return out.toString();
  }

  /** Written whole or not at all: a client reads the CA as soon as the file exists (a test once read it empty). */
  private static void write(Path file, String content) throws IOException {
    Path partial = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".partial",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
    Files.writeString(partial, content);
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static void writeSecret(Path file, String content) throws IOException {
    Path partial = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".partial",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(partial, content);
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
