package io.ordinal.store;

import io.micronaut.context.annotation.Value;
import io.micronaut.data.exceptions.DataAccessException;
import io.micronaut.jdbc.DataSourceResolver;
import jakarta.inject.Singleton;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The Service ClusterIP range ({@code ORDINAL_SERVICE_NETWORK}, default 10.96.0.0/12, kubeadm's) and
 * which of its addresses Services hold (V16: written by triggers with the Service itself, so the
 * database refuses a second holder). The network's first address is reserved, as upstream reserves
 * it for the {@code kubernetes} Service.
 */
@Singleton
public class ClusterIps {
  private static final int ATTEMPTS = 64;

  private final DataSource dataSource;
  private final int base;
  private final int size;
  private final SecureRandom random = new SecureRandom();

  public ClusterIps(DataSource dataSource, DataSourceResolver resolver,
      @Value("${ordinal.service.network:10.96.0.0/12}") String network) {
    this.dataSource = resolver.resolve(dataSource);
    String[] parts = network.split("/");
    int prefix = Integer.parseInt(parts[1]);
    if (prefix < 8 || prefix > 28) {
      throw new IllegalArgumentException("the service network " + network + " must be a /8 to a /28");
    }
    this.size = 1 << (32 - prefix);
    this.base = toInt(parts[0]) & -size;
  }

  /** Whether {@code ip} is an IPv4 address of the service network (network and broadcast addresses excluded). */
  public boolean inRange(String ip) {
    Integer value = parse(ip);
    return value != null && value - base > 0 && value - base < size - 1;
  }

  /** The Service holding {@code ip} ("namespace/name"), if one does. */
  public Optional<String> holder(String ip) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement q = c.prepareStatement("SELECT namespace, name FROM service_cluster_ips WHERE ip = ?")) {
      q.setString(1, ip);
      try (ResultSet rows = q.executeQuery()) {
        return rows.next() ? Optional.of(rows.getString(1) + "/" + rows.getString(2)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw new DataAccessException("the ClusterIPs could not be read", e);
    }
  }

  /**
   * A free address, picked at random past the reserved first one; empty when none was found in a few
   * tries (the range is full, or nearly). The Service's write takes it for good, or fails if another
   * took it meanwhile.
   */
  public Optional<String> free() {
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      String candidate = toText(base + 2 + random.nextInt(size - 3));
      if (holder(candidate).isEmpty()) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  private static Integer parse(String ip) {
    if (ip == null || !ip.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
      return null;
    }
    for (String octet : ip.split("\\.")) {
      if (Integer.parseInt(octet) > 255 || (octet.length() > 1 && octet.startsWith("0"))) {
        return null;
      }
    }
    return toInt(ip);
  }

  private static int toInt(String ip) {
    try {
      byte[] bytes = InetAddress.getByName(ip).getAddress();
      return ((bytes[0] & 0xff) << 24) | ((bytes[1] & 0xff) << 16) | ((bytes[2] & 0xff) << 8) | (bytes[3] & 0xff);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IPv4 address: " + ip, e);
    }
  }

  private static String toText(int value) {
    return ((value >>> 24) & 0xff) + "." + ((value >>> 16) & 0xff) + "." + ((value >>> 8) & 0xff) + "." + (value & 0xff);
  }
}
