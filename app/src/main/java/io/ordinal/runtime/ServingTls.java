package io.ordinal.runtime;

import java.io.IOException;
import java.io.OutputStream;
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
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.x500.X500Name;
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
 * A serving certificate with less than 30 days left, or without a name it now needs, is made anew at
 * start. Clients trust {@code ca.crt} ({@code ./ordinal kubeconfig} embeds it).
 */
public final class ServingTls {
  private static final Duration CA_VALIDITY = Duration.ofDays(3650);
  private static final Duration SERVING_VALIDITY = Duration.ofDays(365);
  private static final Duration RENEW_BEFORE = Duration.ofDays(30);
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final SecureRandom RANDOM = new SecureRandom();

  /** What Micronaut's HTTPS server needs: a PKCS#12 key store and its password. */
  public record KeyStoreFile(Path path, String password, Path caCertificate) {}

  private ServingTls() {}

  public static KeyStoreFile ensure(Path dataDir, String bindAddress, Path userCert, Path userKey)
      throws IOException, GeneralSecurityException {
    Path dir = dataDir.resolve("tls");
    Files.createDirectories(dir);
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    X509Certificate serving;
    PrivateKey servingKey;
    Path caFile = dir.resolve("ca.crt");
    if (userCert != null && userKey != null) {
      serving = readCertificate(Files.readString(userCert));
      servingKey = readKey(Files.readString(userKey));
    } else {
      Set<String> names = servingNames(bindAddress);
      if (!Files.exists(caFile) || !Files.exists(dir.resolve("ca.key"))) {
        KeyPair ca = newKeyPair();
        X509Certificate caCert = sign(new X500Name("CN=ordinal-ca"), ca, new X500Name("CN=ordinal-ca"), ca.getPrivate(),
            CA_VALIDITY, true, Set.of());
        writeSecret(dir.resolve("ca.key"), pem(ca.getPrivate()));
        write(caFile, pem(caCert));
      }
      X509Certificate caCert = readCertificate(Files.readString(caFile));
      PrivateKey caKey = readKey(Files.readString(dir.resolve("ca.key")));
      Path certFile = dir.resolve("serving.crt");
      Path keyFile = dir.resolve("serving.key");
      if (!Files.exists(certFile) || !Files.exists(keyFile)
          || needsRenewal(readCertificate(Files.readString(certFile)), names, Instant.now())) {
        KeyPair pair = newKeyPair();
        X509Certificate cert = sign(new X500Name("CN=ordinal"), pair, X500Name.getInstance(
            caCert.getSubjectX500Principal().getEncoded()), caKey, SERVING_VALIDITY, false, names);
        writeSecret(keyFile, pem(pair.getPrivate()));
        write(certFile, pem(cert) + pem(caCert));
      }
      serving = readCertificate(Files.readString(certFile));
      servingKey = readKey(Files.readString(keyFile));
    }
    // A fresh store and password at every start: nothing to keep in step with the PEM files.
    String password = HexFormat.of().formatHex(RANDOM.generateSeed(16));
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    List<X509Certificate> chain = new ArrayList<>(List.of(serving));
    if (userCert == null && Files.exists(caFile)) {
      chain.add(readCertificate(Files.readString(caFile)));
    }
    store.setKeyEntry("ordinal", servingKey, password.toCharArray(), chain.toArray(X509Certificate[]::new));
    Path storeFile = dir.resolve("serving.p12");
    Path partial = Files.createTempFile(dir, "serving", ".p12",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (OutputStream out = Files.newOutputStream(partial)) {
      store.store(out, password.toCharArray());
    }
    Files.move(partial, storeFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return new KeyStoreFile(storeFile, password, userCert == null ? caFile : null);
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

  private static X509Certificate sign(X500Name subject, KeyPair subjectKeys, X500Name issuer, PrivateKey issuerKey,
      Duration validity, boolean ca, Set<String> names) throws GeneralSecurityException, IOException {
    Instant now = Instant.now();
    var builder = new JcaX509v3CertificateBuilder(issuer, new BigInteger(127, RANDOM),
        Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(validity)), subject, subjectKeys.getPublic());
    var extensions = new JcaX509ExtensionUtils();
    builder.addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(subjectKeys.getPublic()));
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
    if (ca) {
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } else {
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.stream()
          .map(n -> new GeneralName(isIp(n) ? GeneralName.iPAddress : GeneralName.dNSName, n))
          .toArray(GeneralName[]::new)));
    }
    X509CertificateHolder holder;
    try {
      holder = builder.build(new JcaContentSignerBuilder(SIGNATURE).build(issuerKey));
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

  private static void write(Path file, String content) throws IOException {
    Files.writeString(file, content);
  }

  private static void writeSecret(Path file, String content) throws IOException {
    Path partial = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".partial",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(partial, content);
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
